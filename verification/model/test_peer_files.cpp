// Files in the peers' dialects (HPCC, ConWeave) as their own tools read them, and fct.txt in HPCC's layout
// so scripts written for HPCC results read netasic's.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

struct Result {
  int status;
  std::string output;  // stdout and stderr
};

Result netasic_cmd(const std::string& args) {
  const std::string cmd = std::string(NETASIC_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

std::vector<std::string> lines_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::vector<std::string> v;
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

// Nodes 0..255 and 261 are hosts, 256..260 a chain of switches (52 hosts on each of the first ones), so the
// hosts' addresses use both of HPCC's base-256 address digits. A note ends the file, as in HPCC's.
std::string topology_text() {
  std::string t = "262 5 261\n256 257 258 259 260\n";
  for (int h = 0; h < 256; ++h) t += std::to_string(h) + " " + std::to_string(256 + h / 52) + " 100Gbps 1000ns 0\n";
  t += "261 260 100Gbps 1000ns 0\n";
  for (int sw = 256; sw < 260; ++sw) t += std::to_string(sw) + " " + std::to_string(sw + 1) + " 400Gbps 1000ns 0\n";
  return t + "\nFirst line: total node #, switch node #, link #\nSecond line: switch node IDs...\n";
}

TEST(PeerFiles, HpccTailsAndConWeaveFlowsLoadAndFctTxtHasHpccLayout) {
  const std::string topo = test::write_temp("hpcc_topology.txt", topology_text());
  // ConWeave's layout (no dport), then a note after the declared flows.
  const std::string flows = test::write_temp("conweave_flow.txt",
                                             "2\n255 261 3 8192 0.000001\n1 255 3 4096 0\nend of the flows\n");
  const std::string out = (std::filesystem::temp_directory_path() / ("netasic-peer-" + std::to_string(getpid()))).string();
  const Result r = netasic_cmd("run --set topology.type=file --set topology.file=" + topo +
                               " --set workload.type=file --set workload.file=" + flows + " --quiet --out " + out);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find(topo + ":265: 2 lines after the 261 links that line 1 declares are ignored"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(flows + ":4: 1 line after the 2 flows that line 1 declares is ignored"), std::string::npos)
      << r.output;

  // fct.txt: sip dip sport dport size start_ns fct_ns standalone_fct_ns, one line per flow in order of
  // completion; HPCC's address of node n is 0x0b000001 + (n / 256) * 0x10000 + (n % 256) * 0x100.
  const std::vector<std::string> fct = lines_of(std::filesystem::path(out) / "fct.txt");
  const std::vector<std::string> csv = lines_of(std::filesystem::path(out) / "flows.csv");
  ASSERT_EQ(fct.size(), 2u);
  ASSERT_EQ(csv.size(), 3u);
  std::map<std::string, std::vector<std::string>> by_sip;
  for (const std::string& l : fct) {
    std::istringstream in(l);
    std::vector<std::string> f;
    for (std::string x; in >> x;) f.push_back(x);
    ASSERT_EQ(f.size(), 8u) << l;
    by_sip[f[0]] = f;
  }
  // Node 255 -> node 261 and node 1 -> node 255. Both dports are ConWeave's implied 100.
  ASSERT_EQ(by_sip.count("0b00ff01"), 1u) << fct[0] << " / " << fct[1];
  ASSERT_EQ(by_sip.count("0b000101"), 1u) << fct[0] << " / " << fct[1];
  const auto& f0 = by_sip["0b00ff01"];
  const auto& f1 = by_sip["0b000101"];
  EXPECT_EQ(f0[1], "0b010501");
  EXPECT_EQ(f1[1], "0b00ff01");
  EXPECT_EQ(f0[3], "100");
  EXPECT_EQ(f0[4], "8192");
  EXPECT_EQ(f1[4], "4096");
  EXPECT_EQ(f0[5], "1000");  // 1 us start, in ns
  EXPECT_EQ(f1[5], "0");
  // The FCT and the ideal FCT agree with flows.csv (fct_ns, and fct_ns / slowdown), to the nanosecond.
  for (std::size_t row = 1; row < csv.size(); ++row) {
    std::vector<std::string> c;
    std::stringstream in(csv[row]);
    for (std::string x; std::getline(in, x, ',');) c.push_back(x);
    // Flows are numbered by start time; flows.csv names hosts by index (node 1 is host 1).
    const auto& f = c[1] == "1" ? f1 : f0;
    const double fct_ns = std::stod(c[6]), slowdown = std::stod(c[7]);
    EXPECT_NEAR(std::stod(f[6]), fct_ns, 0.5) << csv[row];
    EXPECT_NEAR(std::stod(f[7]), fct_ns / slowdown, 1.0) << csv[row];
  }
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A generated fabric written as GraphML and run from that file behaves as the generated one: same nodes,
// links, rates and delays, so the same flows finish at the same times.
TEST(PeerFiles, ExportedGraphmlRunsLikeTheGeneratedTopology) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-graphml-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string k4 = "--set topology.fat_tree.k=4 --set link.prop_delay_ns=300";
  const std::string file = (dir / "k4.graphml").string();
  Result r = netasic_cmd("export-topology " + k4 + " -o " + file);
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string g = slurp(file);
  EXPECT_EQ(std::count(g.begin(), g.end(), '\n'), 9 + 36 + 48 + 2) << "9 header lines, 36 nodes, 48 edges, 2 closing";
  EXPECT_NE(g.find("<node id=\"h15\"><data key=\"type\">host</data></node>"), std::string::npos);
  EXPECT_NE(g.find("<data key=\"rate_gbps\">200</data><data key=\"delay_ns\">300</data>"), std::string::npos);

  const std::string work = " --set workload.size_bytes=65536 --quiet --out ";
  r = netasic_cmd("run " + k4 + work + (dir / "gen").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = netasic_cmd("run --set topology.type=file --set topology.file=" + file + " " + work + (dir / "file").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(slurp(dir / "gen" / "flows.csv"), slurp(dir / "file" / "flows.csv"));

  // Written through a temporary file: a directory that does not exist is an error, and nothing is left.
  r = netasic_cmd("export-topology " + k4 + " -o " + (dir / "missing" / "k4.graphml").string());
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write"), std::string::npos) << r.output;
}

// A 256-port switch (current switch chips have 128-256 ports; HPCC's own topology has a 65-port one) from a
// file: hosts 0..9 sit on ports 0, 1, 62, 63, 64, 65, 127, 128, 200 and 255 (so the arbiter's round robin
// crosses its groups of 64 inputs and wraps at 256), the other 246 ports hold idle hosts. The same flows on
// a 10-port switch (ports 0..9, the same order) give the same flows.csv, byte for byte: above 64 ports the
// arbiter grants in the same order as the 64-bit one. Every port is in one tile row in both runs, so the
// row buses do not tell the port numbers apart either.
TEST(PeerFiles, A256PortSwitchArbitratesLikeA10PortOne) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-radix-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const int ports[10] = {0, 1, 62, 63, 64, 65, 127, 128, 200, 255};
  std::vector<int> host_at(256, -1);
  for (int h = 0; h < 10; ++h) host_at[ports[h]] = h;
  int idle = 10;
  std::string wide = "257 1 256\n256\n";
  for (int p = 0; p < 256; ++p)
    wide += std::to_string(host_at[p] >= 0 ? host_at[p] : idle++) + " 256 100Gbps 1000ns 0\n";
  std::string narrow = "11 1 10\n10\n";
  for (int h = 0; h < 10; ++h) narrow += std::to_string(h) + " 10 100Gbps 1000ns 0\n";
  // An 8-to-1 incast into host 9 (port 255), one flow back, one across the group boundary, staggered starts.
  const std::string flows = test::write_temp(
      "radix_flows.txt",
      "11\n0 9 3 65536 0\n1 9 3 65536 0\n2 9 3 65536 0\n3 9 3 65536 0\n4 9 3 65536 0\n5 9 3 65536 0\n"
      "6 9 3 65536 0\n7 9 3 65536 0\n8 9 3 65536 0.000001\n9 0 3 32768 0.000002\n3 4 3 16384 0.000003\n");
  const std::string common = " --set workload.type=file --set workload.file=" + flows +
                             " --set switch.ports_per_tile=64 --set switch.tile_columns=64 --quiet --out ";
  Result r = netasic_cmd("run --set topology.type=file --set topology.file=" + test::write_temp("wide.txt", wide) +
                         common + (dir / "wide").string());
  ASSERT_EQ(r.status, 0) << r.output;
  r = netasic_cmd("run --set topology.type=file --set topology.file=" + test::write_temp("narrow.txt", narrow) + common +
                  (dir / "narrow").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string a = slurp(dir / "wide" / "flows.csv"), b = slurp(dir / "narrow" / "flows.csv");
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 12) << a;
  EXPECT_EQ(a, b);
  // More than 256 ports is refused, naming the file and line.
  std::string too_wide = "258 1 257\n257\n";
  for (int h = 0; h < 257; ++h) too_wide += std::to_string(h) + " 257 100Gbps 1000ns 0\n";
  const std::string f = test::write_temp("too_wide.txt", too_wide);
  r = netasic_cmd("run --set topology.type=file --set topology.file=" + f + " --quiet --out " + (dir / "x").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(f + ":259: a switch with more than 256 links"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

// Multi-homed hosts (HPCC's ali_32host_10rack.txt shape): hosts 0-2 link to both leaf switches 4 and 5, host
// 3 to the spine 6 only. Each flow leaves and arrives by the port a hash of the flow picks, so both links of
// every dual-homed host carry data (more than the ACK trickle of a link no flow chose), results name the
// file's hosts only, and fct.txt gives each flow its host's HPCC address.
TEST(PeerFiles, MultiHomedHostsUseEveryLink) {
  const std::string topo = test::write_temp("multihomed.txt",
                                            "7 3 9\n4 5 6\n0 4 100Gbps 1000ns 0\n0 5 100Gbps 1000ns 0\n"
                                            "1 4 100Gbps 1000ns 0\n1 5 100Gbps 1000ns 0\n2 4 100Gbps 1000ns 0\n"
                                            "2 5 100Gbps 1000ns 0\n3 6 100Gbps 1000ns 0\n4 6 400Gbps 1000ns 0\n"
                                            "5 6 400Gbps 1000ns 0\n");
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-multihomed-" + std::to_string(getpid()));
  const Result r = netasic_cmd("run --set topology.type=file --set topology.file=" + topo +
                               " --set workload.type=uniform --set workload.load=0.3 --set workload.duration_us=400"
                               " --set workload.size_bytes=65536 --quiet --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("4 hosts, 3 switches, 9 links (3 more host ports: multi-homed hosts)"), std::string::npos)
      << r.output;
  int host_ports = 0;
  for (const std::string& line : lines_of(dir / "ports.csv")) {
    std::vector<std::string> c;
    std::stringstream in(line);
    for (std::string x; std::getline(in, x, ',');) c.push_back(x);
    if (c[0] == "switch" || c[0] == "2" || c[2].rfind("sw", 0) == 0) continue;  // the header, the spine, uplinks
    EXPECT_GT(std::stod(c[4]), 0.05) << "a link of a dual-homed host that no flow used: " << line;
    ++host_ports;
  }
  EXPECT_EQ(host_ports, 6);
  const std::vector<std::string> flows = lines_of(dir / "flows.csv");
  ASSERT_GT(flows.size(), 50u);
  for (std::size_t i = 1; i < flows.size(); ++i) {
    std::vector<std::string> c;
    std::stringstream in(flows[i]);
    for (std::string x; std::getline(in, x, ',');) c.push_back(x);
    EXPECT_LT(std::stoi(c[1]), 4) << flows[i];
    EXPECT_LT(std::stoi(c[2]), 4) << flows[i];
    EXPECT_FALSE(c[5].empty()) << "every flow completes: " << flows[i];
  }
  for (const std::string& line : lines_of(dir / "fct.txt"))
    EXPECT_TRUE(line.rfind("0b000001 ", 0) == 0 || line.rfind("0b000101 ", 0) == 0 || line.rfind("0b000201 ", 0) == 0 ||
                line.rfind("0b000301 ", 0) == 0)
        << line;
  std::filesystem::remove_all(dir);
}

// Randomness comes from the seed, also where the only random choice is a hash: a flow file on a leaf-spine
// fabric under ECMP (no generator draws anything) takes other spines with another seed, and the same seed
// gives the same run.
TEST(PeerFiles, SeedsSampleOtherEcmpHashesForTheSameFlowFile) {
  std::string text = "32\n";
  for (int i = 0; i < 32; ++i)  // hosts 0-7 under leaf 0 send to hosts 8-15 under leaf 1
    text += std::to_string(i % 8) + " " + std::to_string(8 + (i * 3) % 8) + " 3 100 65536 0.00000" +
            std::to_string(i % 10) + "\n";
  const std::string flows = test::write_temp("seeded_flows.txt", text);
  auto spine_ports = [&](int seed) {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("netasic-seeded-" + std::to_string(getpid()) + "-" + std::to_string(seed));
    const Result r = netasic_cmd("run --set topology.type=leaf_spine --set topology.leaf_spine.leaves=2"
                                 " --set topology.leaf_spine.spines=8 --set topology.leaf_spine.hosts_per_leaf=8"
                                 " --set workload.type=file --set workload.file=" + flows +
                                 " --seed " + std::to_string(seed) + " --quiet --out " + dir.string());
    EXPECT_EQ(r.status, 0) << r.output;
    std::string busy;  // leaf 0's uplinks' utilization: how the hash spread the flows over the spines
    for (const std::string& line : lines_of(dir / "ports.csv")) {
      std::vector<std::string> c;
      std::stringstream in(line);
      for (std::string x; std::getline(in, x, ',');) c.push_back(x);
      if (c[0] == "0" && c[2].rfind("sw", 0) == 0) busy += c[4] + ";";
    }
    std::filesystem::remove_all(dir);
    return busy;
  };
  const std::string one = spine_ports(1), two = spine_ports(2), three = spine_ports(3);
  ASSERT_EQ(std::count(one.begin(), one.end(), ';'), 8);
  EXPECT_EQ(spine_ports(1), one);
  EXPECT_TRUE(one != two || two != three) << one << " " << two << " " << three;
}

}  // namespace
}  // namespace netasic
