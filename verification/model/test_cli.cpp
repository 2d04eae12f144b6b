// The netasic command line as a user drives it: outputs, determinism, key listing, and every kind of bad
// input stopping with exit status 2 and a message naming the file, line or key.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include "tb/scenario.h"
#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

using test::write_temp;

struct Result {
  int status;
  std::string output;  // stdout and stderr
};

Result netasic_cmd_prefixed(const std::string& prefix, const std::string& args) {
  const std::string cmd = prefix + std::string(NETASIC_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

Result netasic_cmd(const std::string& args) { return netasic_cmd_prefixed("", args); }

// The same with environment assignments ("NAME=value ...") for the netasic process only.
Result netasic_cmd_env(const std::string& env, const std::string& args) {
  return netasic_cmd_prefixed("env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u SLURM_STEP_NUM_TASKS " + env + " ", args);
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string out_dir(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("netasic-cli-" + std::to_string(getpid()) + "-" + name)).string();
}

const std::string kSmall = "--set topology.fat_tree.k=4 --set workload.size_bytes=262144 --quiet";

TEST(Cli, DefaultScenarioPrintsSummaryAndWritesOutputs) {
  const std::string dir = out_dir("default");
  const Result r = netasic_cmd("run --quiet --out " + dir);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("flows completed              128 / 128"), std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(slurp(std::filesystem::path(dir) / "summary.json"));
  for (const char* key : {"seed", "sim_time_ns", "wall_seconds", "events", "packet_hops", "scenario"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"avg", "p50", "p99", "p999", "max"}) EXPECT_TRUE(j["flows"]["fct_ns"].contains(key)) << key;
  for (const char* key : {"avg", "p50", "p99"}) EXPECT_TRUE(j["flows"]["slowdown"].contains(key)) << key;
  for (const char* key : {"injected", "delivered", "dropped", "out_of_order", "ooo_fraction", "max_ooo_degree"})
    EXPECT_TRUE(j["packets"].contains(key)) << key;
  EXPECT_EQ(j["flows"]["count"], 128);
  EXPECT_EQ(j["flows"]["completed"], 128);
  EXPECT_EQ(j["scenario"]["topology"]["fat_tree"]["k"], 8);
  const std::string csv = slurp(std::filesystem::path(dir) / "flows.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,slowdown,ooo_packets,path_changes,flowcuts,drains,drain_ns");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 129);
}

nlohmann::json without_wall_clock(nlohmann::json j) {
  j.erase("wall_seconds");
  j.erase("packet_hops_per_second");
  return j;
}

TEST(Cli, SameSeedGivesIdenticalOutputsAndAnotherSeedDoesNot) {
  const std::string a = out_dir("seed_a"), b = out_dir("seed_b"), c = out_dir("seed_c");
  ASSERT_EQ(netasic_cmd("run " + kSmall + " --seed 7 --out " + a).status, 0);
  ASSERT_EQ(netasic_cmd("run " + kSmall + " --seed 7 --out " + b).status, 0);
  ASSERT_EQ(netasic_cmd("run " + kSmall + " --seed 8 --out " + c).status, 0);
  EXPECT_EQ(slurp(a + "/flows.csv"), slurp(b + "/flows.csv"));
  EXPECT_EQ(without_wall_clock(nlohmann::json::parse(slurp(a + "/summary.json"))),
            without_wall_clock(nlohmann::json::parse(slurp(b + "/summary.json"))));
  EXPECT_NE(slurp(a + "/flows.csv"), slurp(c + "/flows.csv"));
}

TEST(Cli, TemporalDecouplingQuantumDoesNotChangeResults) {
  const std::string a = out_dir("q0"), b = out_dir("q1000");
  ASSERT_EQ(netasic_cmd("run " + kSmall + " --set routing.policy=spray --set sim.sync_quantum_ns=0 --out " + a).status, 0);
  ASSERT_EQ(netasic_cmd("run " + kSmall + " --set routing.policy=spray --set sim.sync_quantum_ns=1000 --out " + b).status, 0);
  EXPECT_EQ(slurp(a + "/flows.csv"), slurp(b + "/flows.csv"));
}

TEST(Cli, HugePagesDoNotChangeResults) {
  const std::string a = out_dir("huge_on"), b = out_dir("huge_off");
  const Result on = netasic_cmd("--log-level info run " + kSmall + " --set sim.huge_pages=true --out " + a);
  ASSERT_EQ(on.status, 0) << on.output;
  EXPECT_NE(on.output.find("huge pages:"), std::string::npos) << on.output;  // says what it did
  const Result off = netasic_cmd("--log-level info run " + kSmall + " --set sim.huge_pages=false --out " + b);
  ASSERT_EQ(off.status, 0) << off.output;
  EXPECT_EQ(off.output.find("huge pages:"), std::string::npos) << off.output;
  EXPECT_EQ(slurp(a + "/flows.csv"), slurp(b + "/flows.csv"));
  EXPECT_EQ(without_wall_clock(nlohmann::json::parse(slurp(a + "/summary.json")))["packets"],
            without_wall_clock(nlohmann::json::parse(slurp(b + "/summary.json")))["packets"]);
}

// The event loop's prefetch steps (sim.prefetch) change speed only: the same flows and ports with two steps,
// three or none, and the log says which was chosen (auto: off on this small fabric).
TEST(Cli, PrefetchStepsDoNotChangeResults) {
  const std::string a = out_dir("prefetch_on"), b = out_dir("prefetch_off"), c = out_dir("prefetch_auto"),
                    d = out_dir("prefetch_deep");
  const Result on = netasic_cmd("--log-level info run " + kSmall + " --set sim.prefetch=on --out " + a);
  ASSERT_EQ(on.status, 0) << on.output;
  EXPECT_NE(on.output.find("prefetch steps on ("), std::string::npos) << on.output;
  const Result off = netasic_cmd("--log-level info run " + kSmall + " --set sim.prefetch=off --out " + b);
  ASSERT_EQ(off.status, 0) << off.output;
  EXPECT_NE(off.output.find("prefetch steps off ("), std::string::npos) << off.output;
  const Result automatic = netasic_cmd("--log-level info run " + kSmall + " --out " + c);
  ASSERT_EQ(automatic.status, 0) << automatic.output;
  EXPECT_NE(automatic.output.find("prefetch steps off ("), std::string::npos) << automatic.output;
  EXPECT_NE(automatic.output.find("sim.prefetch = auto)"), std::string::npos) << automatic.output;
  const Result deep = netasic_cmd("--log-level info run " + kSmall + " --set sim.prefetch=deep --out " + d);
  ASSERT_EQ(deep.status, 0) << deep.output;
  EXPECT_NE(deep.output.find("prefetch steps deep ("), std::string::npos) << deep.output;
  for (const char* file : {"/flows.csv", "/ports.csv"}) {
    EXPECT_EQ(slurp(a + file), slurp(b + file)) << file;
    EXPECT_EQ(slurp(a + file), slurp(c + file)) << file;
    EXPECT_EQ(slurp(a + file), slurp(d + file)) << file;
  }
}

// auto picks the steps by the fabric's switch ports (docs/performance.md): two steps above 1,500, three above
// 10,000. Fat trees of k = 16 (5,120 ports) and k = 22 (13,310), run for one simulated microsecond.
TEST(Cli, PrefetchStepsFollowTheFabricSize) {
  const std::string tiny = " --set workload.size_bytes=4096 --set sim.max_time_us=1 --quiet --out ";
  const Result mid = netasic_cmd("--log-level info run --set topology.fat_tree.k=16" + tiny + out_dir("prefetch_k16"));
  ASSERT_EQ(mid.status, 0) << mid.output;
  EXPECT_NE(mid.output.find("prefetch steps on (5120 switch ports, sim.prefetch = auto)"), std::string::npos)
      << mid.output;
  const Result large = netasic_cmd("--log-level info run --set topology.fat_tree.k=22" + tiny + out_dir("prefetch_k22"));
  ASSERT_EQ(large.status, 0) << large.output;
  EXPECT_NE(large.output.find("prefetch steps deep (13310 switch ports, sim.prefetch = auto)"), std::string::npos)
      << large.output;
}

// Several processes that a launcher says were started together but that MPI does not join (a build without MPI,
// or another MPI's launcher) would each simulate the whole fabric, as would `bench` under any launcher: each
// stops with status 2, and only the first says why, naming the variable that told it; nothing is written. One
// process runs as usual. (mpirun itself: CTest label mpi.)
TEST(Cli, SeveralLaunchedProcessesStopAndTheFirstSaysWhy) {
  const std::string dir = out_dir("launched");
  const std::string run = "run " + kSmall + " --out " + dir;
  const Result first = netasic_cmd_env("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0", run);
  EXPECT_EQ(first.status, 2) << first.output;
  EXPECT_NE(first.output.find("run: started as 2 processes together (OMPI_COMM_WORLD_SIZE=2)"), std::string::npos)
      << first.output;
  const Result second = netasic_cmd_env("OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=1", run);
  EXPECT_EQ(second.status, 2);
  EXPECT_EQ(second.output, "");
  const Result srun = netasic_cmd_env("SLURM_STEP_NUM_TASKS=3 SLURM_PROCID=0", "bench --quiet");
  EXPECT_EQ(srun.status, 2) << srun.output;
  EXPECT_NE(srun.output.find("bench: started as 3 processes together (SLURM_STEP_NUM_TASKS=3)"), std::string::npos)
      << srun.output;
  EXPECT_FALSE(std::filesystem::exists(dir));
  const Result one = netasic_cmd_env("OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 SLURM_STEP_NUM_TASKS=1 SLURM_PROCID=0", run);
  EXPECT_EQ(one.status, 0) << one.output;
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir) / "summary.json"));
}

// The causal order and the partition emulation (docs/parallel.md) refuse what they cannot run, with exit 2 and
// the key named; a run of either writes what it did into summary.json.
TEST(Cli, CausalOrderAndPartitionEmulationRefuseWhatTheyCannotRun) {
  const Result sequence = netasic_cmd("run " + kSmall + " --set parallel.emulate_ranks=2 --out " + out_dir("emu_seq"));
  EXPECT_EQ(sequence.status, 2) << sequence.output;
  EXPECT_NE(sequence.output.find("parallel.emulate_ranks needs sim.event_order = causal"), std::string::npos)
      << sequence.output;
  const Result too_many = netasic_cmd("run " + kSmall + " --set sim.event_order=causal --set parallel.emulate_ranks=9 "
                                      "--out " + out_dir("emu_many"));
  EXPECT_EQ(too_many.status, 2) << too_many.output;
  EXPECT_NE(too_many.output.find("parallel.emulate_ranks = 9, parallel.partition = auto: partition: 9 ranks but the fabric has 4 pods"), std::string::npos) << too_many.output;
  const Result host = netasic_cmd("run " + kSmall + " --set sim.event_order=causal --set nic.host_interface=true "
                                  "--out " + out_dir("causal_host"));
  EXPECT_EQ(host.status, 2) << host.output;
  EXPECT_NE(host.output.find("sim.event_order = causal: nic.host_interface"), std::string::npos) << host.output;
  const std::string dir = out_dir("emu_ok");
  const Result ok = netasic_cmd("run " + kSmall + " --set sim.event_order=causal --set parallel.emulate_ranks=2 --out " + dir);
  ASSERT_EQ(ok.status, 0) << ok.output;
  const auto j = nlohmann::json::parse(slurp(std::filesystem::path(dir) / "summary.json"));
  EXPECT_EQ(j["event_order"]["order"], "causal");
  EXPECT_EQ(j["parallel"]["emulated_ranks"], 2);
  EXPECT_EQ(j["parallel"]["partition"], "pod");
  EXPECT_GT(j["parallel"]["frames_handed_over"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j["parallel"]["credit_returns_handed_over"].get<std::uint64_t>(), 0u);
}

TEST(Cli, KeysListsEveryKeyWithItsAllowedValues) {
  const Result r = netasic_cmd("keys");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(static_cast<std::size_t>(std::count(r.output.begin(), r.output.end(), '\n')), scenario_keys().size());
  EXPECT_NE(r.output.find("routing.policy\tchoice\t-\tecmp\tone of: ecmp, spray, adaptive, minimal, valiant, ugal, flowcut, letflow"),
            std::string::npos);
  EXPECT_NE(r.output.find("link.rate_gbps\tnumber\tGb/s\t200\t"), std::string::npos);
}

TEST(Cli, ScenarioKeysDocMatchesTheBinary) {
  const Result r = netasic_cmd("keys --markdown");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(slurp(std::string(NETASIC_SOURCE_DIR) + "/docs/scenario-keys.md"), r.output)
      << "regenerate with: build/netasic keys --markdown > docs/scenario-keys.md";
}

TEST(Cli, RunHelpSaysWhereKeysAreDocumented) {
  const Result r = netasic_cmd("run --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.output.find("docs/scenario-keys.md"), std::string::npos) << r.output;
}

struct BadCase {
  const char* name;
  std::string args;
  std::string expect;  // substring of the message
};

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, StopsWithStatus2AndSaysWhatIsAccepted) {
  const BadCase& c = GetParam();
  const Result r = netasic_cmd("run --quiet --out " + out_dir(c.name) + " " + c.args);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(c.expect), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
}

// A directory where a scenario file is expected.
std::string scenario_dir() {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-cli-" + std::to_string(getpid()) + "-scenario-dir");
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::vector<BadCase> bad_cases() {
  const std::string two_hosts = "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n";
  return {
      {"unknown_key", "--set link.speed=100", "unknown key 'link.speed'"},
      {"unknown_key_yaml", write_temp("bad_key.yaml", "nic:\n  mtu: 1024\n"), "bad_key.yaml:2: unknown key 'nic.mtu'"},
      {"wrong_type", "--set nic.mtu_bytes=big", "nic.mtu_bytes = 'big': not an integer"},
      {"negative_rate", "--set link.rate_gbps=-100", "link.rate_gbps = '-100': out of range"},
      {"zero_hosts", "--set topology.type=leaf_spine --set topology.leaf_spine.hosts_per_leaf=0", "out of range; accepted: integer 1..255"},
      {"odd_k", "--set topology.fat_tree.k=7", "must be even"},
      {"bad_policy", "--set routing.policy=ugal", "needs topology.type dragonfly"},
      {"bad_choice", "--set workload.type=uniform_random", "one of: permutation, all_to_all, random, uniform, bit_reversal, incast, file"},
      {"tiny_buffer", "--set switch.input_buffer_bytes=2048", "cannot hold one packet"},
      {"missing_scenario", "/nonexistent/scenario.yaml", "cannot open scenario file"},
      {"bad_yaml", write_temp("broken.yaml", "topology: [\n"), "not valid YAML"},
      {"non_monotonic_cdf",
       "--set workload.type=random --set workload.cdf=" + write_temp("cdf.txt", "100 0\n200 50\n150 60\n300 100\n"),
       "cdf.txt:3"},
      {"unknown_cdf", "--set workload.type=random --set workload.cdf=nosuchcdf", "nosuchcdf"},
      {"topology_unknown_node",
       "--set topology.type=file --set topology.file=" + write_temp("topo_bad.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 9 100Gbps 1000ns 0\n"),
       "topo_bad.txt:4"},
      {"flow_to_missing_host",
       "--set topology.type=file --set topology.file=" + write_temp("topo_ok.txt", two_hosts) +
           " --set workload.type=file --set workload.file=" + write_temp("flows_bad.txt", "1\n0 5 3 100 1000 0\n"),
       "flows_bad.txt:2"},
      {"flow_to_switch",
       "--set topology.type=file --set topology.file=" + write_temp("topo_ok2.txt", two_hosts) +
           " --set workload.type=file --set workload.file=" + write_temp("flows_sw.txt", "1\n0 2 3 100 1000 0\n"),
       "which is a switch, not a host"},
      {"incast_destination", "--set workload.type=incast --set workload.incast.destination=500", "hosts 0..127"},
      {"bad_set_syntax", "--set nokeyvalue", "expected KEY=VALUE"},
      {"bad_flag", "--no-such-flag", "no-such-flag"},
      {"reorder_buffer_too_small", "--set nic.transport=reorder --set nic.reorder.buffer_bytes=2048",
       "one packet of 4160 bytes needs 17"},
      {"window_needs_static", "--set nic.transport=reorder --set nic.reorder.memory=dynamic --set nic.reorder.injection=adap_lw",
       "needs nic.reorder.memory = static"},
      // Cross-key checks of the switch builder, naming the keys involved.
      {"hop_flow_control_needs_lossless", "--set switch.flow_control=flowsail --set link.flow_control=lossy",
       "switch.flow_control = flowsail needs link.flow_control = lossless"},
      {"flowsail_needs_two_queues", "--set switch.flow_control=flowsail --set switch.fc.queues=1",
       "switch.flow_control = flowsail needs at least 2 queues per group"},
      {"fc_groups_divide_queues", "--set switch.flow_control=pfc --set switch.fc.queues=3 --set switch.fc.groups=2",
       "switch.fc.queues = 3 does not divide into switch.fc.groups = 2"},
      {"ingress_latency_below_latency", "--set switch.ingress_latency_ns=400",
       "switch.ingress_latency_ns (400 ns) must be below switch.latency_ns"},
      // Inputs that used to run silently or give a wrong answer.
      {"seed_negative", "--seed -1", "--seed: sim.seed = '-1': out of range; accepted: integer 0..1e+18"},
      {"seed_above_maximum", "--seed 1000000000000000001", "--seed: sim.seed = '1000000000000000001': out of range"},
      {"seed_not_integer", "--seed 0x10", "--seed: sim.seed = '0x10': not an integer"},
      {"scenario_is_directory", scenario_dir(), scenario_dir() + ": is a directory, not a scenario file"},
      {"yaml_duplicate_key", write_temp("dup.yaml", "link:\n  rate_gbps: 100\n  rate_gbps: 200\n"),
       "dup.yaml:3: duplicate key 'rate_gbps' (link.rate_gbps) in one map, first on line 2"},
      {"yaml_nested_and_dotted", write_temp("dotted.yaml", "link: {rate_gbps: 100}\nlink.rate_gbps: 200\n"),
       "dotted.yaml:2: key 'link.rate_gbps' is already set on line 1"},
      {"yaml_second_document", write_temp("docs.yaml", "link:\n  rate_gbps: 100\n---\nlink:\n  rate_gbps: 200\n"),
       "docs.yaml:4: a second YAML document"},
      {"hex_number", "--set link.rate_gbps=0x10", "link.rate_gbps = '0x10': not a number"},
      {"hex_integer_yaml", write_temp("hex.yaml", "nic:\n  mtu_bytes: 0x400\n"),
       "hex.yaml:2: nic.mtu_bytes = '0x400': not an integer"},
      {"taper_not_whole", "--set topology.fat_tree.taper=1.3",
       "topology.fat_tree.taper = 1.3: with k = 8 the hosts per edge switch, taper * k/2 = 5.2, are not whole"},
      {"topology_rate_too_slow",
       "--set topology.type=file --set topology.file=" + write_temp("topo_slow.txt", "3 1 2\n2\n0 2 0.003bps 1000ns 0\n1 2 100Gbps 1000ns 0\n"),
       "topo_slow.txt:3: rate '0.003bps' is outside the supported 0.001Gbps"},
      {"topology_rate_too_fast",
       "--set topology.type=file --set topology.file=" + write_temp("topo_fast.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 1000Tbps 1000ns 0\n"),
       "topo_fast.txt:4: rate '1000Tbps' is outside the supported"},
      {"topology_error_rate_one",
       "--set topology.type=file --set topology.file=" + write_temp("topo_lossy.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 1\n1 2 100Gbps 1000ns 0\n"),
       "topo_lossy.txt:3: error_rate '1' is outside [0, 1)"},
      {"slowed_link_too_slow", "--set topology.type=leaf_spine --set topology.leaf_spine.slow_links=0-0:1e-300",
       "runs at 2e-298 Gb/s, below the model's minimum of 1 b/s"},
      {"slow_factor_hex", "--set topology.type=leaf_spine --set topology.leaf_spine.slow_links=0-0:0x0.8",
       "topology.leaf_spine.slow_links: '0-0:0x0.8': FACTOR must be a plain decimal number in (0, 1]"},
      {"remove_link_with_trailing_text", "--set topology.type=leaf_spine --set topology.leaf_spine.remove_links=0-1:0.5",
       "topology.leaf_spine.remove_links: '0-1:0.5' is not LEAF-SPINE"},
      {"cdf_all_zero", "--set workload.type=random --set workload.cdf=" + write_temp("zero_cdf.txt", "0 0\n0 100\n"),
       "zero_cdf.txt:2: the largest size a flow can take is 0 bytes"},
      {"flow_size_too_many_packets", "--set workload.size_bytes=1000000000000 --set nic.mtu_bytes=64",
       "workload.size_bytes: a flow of 1000000000000 bytes is 15625000000 packets"},
      {"flow_file_too_many_packets",
       "--set topology.type=file --set topology.file=" + write_temp("topo_ok3.txt", two_hosts) +
           " --set workload.type=file --set workload.file=" + write_temp("flows_big.txt", "1\n0 1 3 100 17592186048512 0\n"),
       "flows_big.txt:2: size_bytes: a flow of 17592186048512 bytes is 4294967297 packets"},
  };
}

INSTANTIATE_TEST_SUITE_P(Cli, BadInput, ::testing::ValuesIn(bad_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// `netasic sweep`: bad options and a directory as the base scenario stop before any point runs.
TEST(Cli, SweepRejectsNegativeCountsAndADirectoryAsBase) {
  const std::string sweep = write_temp("ok_sweep.yaml", "grid:\n  sim.seed: [1, 2]\n");
  Result r = netasic_cmd("sweep " + sweep + " --dry-run -j -1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("sweep: -j/--jobs -1: accepted 0 (one worker per core) .. 4096"), std::string::npos) << r.output;
  r = netasic_cmd("sweep " + sweep + " --dry-run --retries -1");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("sweep: --retries -1: accepted 0 .. 100"), std::string::npos) << r.output;
  r = netasic_cmd("sweep " + sweep + " --dry-run -j 2 --retries 0");
  EXPECT_EQ(r.status, 0) << r.output;
  const std::string dir_base = write_temp("dir_base_sweep.yaml", "base: " + scenario_dir() + "\ngrid:\n  sim.seed: [1, 2]\n");
  r = netasic_cmd("sweep " + dir_base + " --dry-run");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(scenario_dir() + ": is a directory, not a scenario file"), std::string::npos) << r.output;
  // A second grid section, a key set twice and a second document would be dropped or win silently.
  for (const auto& [name, text, expect] : std::vector<std::array<std::string, 3>>{
           {"two_grids.yaml", "grid:\n  sim.seed: [1, 2]\ngrid:\n  sim.seed: [3]\n",
            "two_grids.yaml:3: section 'grid' appears again (first on line 1)"},
           {"set_twice.yaml", "set:\n  link:\n    rate_gbps: 100\n  link.rate_gbps: 200\ngrid:\n  sim.seed: [1]\n",
            "set_twice.yaml:4: set: key 'link.rate_gbps' is set twice"},
           {"hex_seeds.yaml", "seeds: 0x3\n", "hex_seeds.yaml: key 'seeds': '0x3' is not an integer"},
           {"two_docs.yaml", "grid:\n  sim.seed: [1, 2]\n---\ngrid:\n  sim.seed: [3]\n",
            "two_docs.yaml:4: a second YAML document"}}) {
    r = netasic_cmd("sweep " + write_temp(name, text) + " --dry-run");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find(expect), std::string::npos) << r.output;
  }
  r = netasic_cmd("sweep " + scenario_dir() + " --dry-run");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(scenario_dir() + ": is a directory, not a sweep file"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace netasic
