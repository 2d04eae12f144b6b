// Chakra execution traces (docs/collectives.md, "Chakra execution traces"): the hand-made trace of
// verification/inputs/chakra/basic replayed on an idle switch, every time checked by hand, and bad traces.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

namespace fs = std::filesystem;

struct Result {
  int status;
  std::string output;
};

Result netasic_cmd(const std::string& args) {
  FILE* pipe = popen((std::string(NETASIC_BINARY) + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const fs::path kTraces = fs::path(NETASIC_SOURCE_DIR) / "verification" / "inputs" / "chakra";

// 8 hosts on one switch, 100 Gb/s links of 1 us (the collectives tests' idle switch).
std::string star() {
  std::string t = "9 1 8\n8\n";
  for (int h = 0; h < 8; ++h) t += std::to_string(h) + " 8 100Gbps 1000ns 0\n";
  return test::write_temp("chakra_star.txt", t);
}

// A ring step of m bytes on the star (docs/collectives.md): two links, the switch, the sender's uplink
// carrying its data packets and the ACKs of what it receives.
double step_ns(double m) {
  const double packets = std::ceil(m / 4096);
  return 2 * 1000 + 350 + (m + packets * 84 + packets * 84) * 8 / 100;
}

struct FlowRow {
  int src, dst;
  double start, finish;
};

// Rank by rank: compute 10 us, a 1 MiB ring all-reduce, compute 5 us; rank 0 then sends 64 KiB to rank 1,
// which computes 7 us after receiving it. The all-reduce starts at 10 us and takes 6 ring steps of 256 KiB;
// the send starts 5 us after the last all-reduce flow to or from rank 0 is delivered; rank 1 finishes 7 us
// after the send is delivered.
TEST(Chakra, ReplayWaitsForDependenciesAndComputeAsWrittenOut) {
  const fs::path out = fs::temp_directory_path() / ("netasic-chakra-" + std::to_string(getpid()));
  const Result r = netasic_cmd("run --set topology.type=file --set topology.file=" + star() +
                               " --set workload.type=chakra --set workload.chakra_dir=" + (kTraces / "basic").string() +
                               " --quiet --out " + out.string());
  ASSERT_EQ(r.status, 0) << r.output;
  // Nodes the model does not replay are named and counted, on stderr and in summary.json.
  EXPECT_NE(r.output.find("nodes replayed as no-ops (not modelled): COMM_COLL_NODE BARRIER 4, MEM_LOAD_NODE 1, "
                          "METADATA_NODE 1"),
            std::string::npos)
      << r.output;
  const nlohmann::json s = nlohmann::json::parse(slurp(out / "summary.json"));
  const nlohmann::json& c = s["chakra"];
  EXPECT_EQ(c["ranks"], 4);
  EXPECT_EQ(c["nodes"], 21);
  EXPECT_EQ(c["replayed"]["COMP_NODE"], 9);
  EXPECT_EQ(c["replayed"]["COMM_COLL_NODE"], 4);
  EXPECT_EQ(c["replayed"]["COMM_SEND_NODE"], 1);
  EXPECT_EQ(c["replayed"]["COMM_RECV_NODE"], 1);
  EXPECT_EQ(c["unsupported"]["COMM_COLL_NODE BARRIER"], 4);
  EXPECT_EQ(c["unsupported"]["MEM_LOAD_NODE"], 1);
  EXPECT_EQ(c["unsupported"]["METADATA_NODE"], 1);
  ASSERT_TRUE(c["complete"].get<bool>());

  std::vector<FlowRow> flows;
  std::stringstream csv(slurp(out / "flows.csv"));
  std::string line;
  std::getline(csv, line);
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string x; std::getline(cells, x, ',');) f.push_back(x);
    flows.push_back({std::stoi(f[1]), std::stoi(f[2]), std::stod(f[4]), std::stod(f[5])});
  }
  ASSERT_EQ(flows.size(), 25u);  // 6 ring steps x 4 ranks, and the send
  double first = 1e18, last = 0, rank0_done = 0;
  for (std::size_t i = 0; i + 1 < flows.size(); ++i) {
    first = std::min(first, flows[i].start);
    last = std::max(last, flows[i].finish);
    if (flows[i].src == 0 || flows[i].dst == 0) rank0_done = std::max(rank0_done, flows[i].finish);
  }
  EXPECT_DOUBLE_EQ(first, 10000);
  EXPECT_NEAR((last - first) / (6 * step_ns(262144)), 1.0, 0.02);
  const FlowRow& send = flows.back();
  EXPECT_EQ(send.src, 0);
  EXPECT_EQ(send.dst, 1);
  EXPECT_NEAR(send.start, rank0_done + 5000, 0.01);
  const auto& ranks = c["rank_completion_ns"];
  EXPECT_NEAR(ranks[1].get<double>(), send.finish + 7000, 0.01);
  EXPECT_NEAR(ranks[0].get<double>(), send.finish, 0.01);
  EXPECT_NEAR(c["completion_ns"].get<double>(), send.finish + 7000, 0.01);
  // The all-reduce is also an entry of summary.json collectives, with its steps in collective_steps.csv.
  ASSERT_EQ(s["collectives"].size(), 1u);
  EXPECT_EQ(s["collectives"][0]["op"], "all_reduce");
  EXPECT_DOUBLE_EQ(s["collectives"][0]["start_ns"].get<double>(), 10000);
  fs::remove_all(out);
}

TEST(Chakra, BadTracesAreExit2NamingTheFile) {
  const fs::path dir = fs::temp_directory_path() / ("netasic-chakra-bad-" + std::to_string(getpid()));
  fs::create_directories(dir / "truncated");
  fs::create_directories(dir / "gap");
  for (int rank : {0, 1, 2, 3}) {
    const std::string name = "trace." + std::to_string(rank) + ".et";
    std::string bytes = slurp(kTraces / "basic" / name);
    if (rank == 2) bytes.resize(bytes.size() - 9);  // cut inside the last node
    std::ofstream(dir / "truncated" / name, std::ios::binary) << bytes;
    if (rank != 2) std::ofstream(dir / "gap" / name, std::ios::binary) << slurp(kTraces / "basic" / name);
  }
  struct Case {
    std::string chakra_dir, extra, message;
  } cases[] = {
      {(kTraces / "bad_dep").string(), "", "bad_dep/trace.0.et: node 2 (b) depends on node 5, which the trace does not have"},
      {(kTraces / "unmatched_recv").string(), "",
       "unmatched_recv/trace.0.et: node 1 (wait, COMM_RECV_NODE) can never run: no rank sends it the matching message"},
      {(dir / "truncated").string(), "", "truncated/trace.2.et: byte "},
      {(dir / "gap").string(), "", "no trace for rank 2 (trace.2.et)"},
      {(kTraces / "basic").string(), "--set topology.fat_tree.k=2", "4 ranks; the topology has 2 hosts"},
      {(kTraces / "basic" / "trace.0.et").string(), "", "not a directory of Chakra trace files"},
      {"", "", "workload.type is chakra but workload.chakra_dir is not set"},
  };
  for (const Case& c : cases) {
    const Result r = netasic_cmd("run --set workload.type=chakra --set workload.chakra_dir=" + c.chakra_dir + " " +
                                 c.extra + " --quiet --out " + (dir / "out").string());
    EXPECT_EQ(r.status, 2) << c.chakra_dir << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace netasic
