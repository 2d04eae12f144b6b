// trace.json and packets.pcap of a run, checked against a packet whose timing is worked out by hand.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
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
  std::string output;
};

Result shell(const std::string& cmd) {
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  return Result{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::uint32_t le32(const std::string& b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<std::uint8_t>(b[at + i]);
  return v;
}

// Host 0 -> switch -> host 1, 100 Gb/s links of 1 us; one flow of one 1000-byte packet.
class Trace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string topo = test::write_temp("trace_topo.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n");
    const std::string flows = test::write_temp("trace_flows.txt", "1\n0 1 3 100 1000 0\n");
    dir_ = std::filesystem::temp_directory_path() / ("netasic-trace-" + std::to_string(getpid()));
    const Result r = shell(std::string(NETASIC_BINARY) + " run --set topology.type=file --set topology.file=" + topo +
                           " --set workload.type=file --set workload.file=" + flows +
                           " --set trace.enabled=true --set trace.flows=all --set trace.switches=all --quiet --out " +
                           dir_.string());
    ASSERT_EQ(r.status, 0) << r.output;
  }
  static std::filesystem::path dir_;
};
std::filesystem::path Trace::dir_;

TEST_F(Trace, JsonHasThePacketOnTheSwitchPortAndTheFlowsEvents) {
  const auto j = nlohmann::json::parse(slurp(dir_ / "trace.json"));
  const nlohmann::json* wire = nullptr;
  double send = -1, deliver = -1;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      ASSERT_EQ(wire, nullptr) << "one packet leaves the switch: " << e;
      wire = &e;
    }
    if (e["ph"] == "i" && e["name"] == "send #0") send = e["ts"].get<double>();
    if (e["ph"] == "i" && e["name"] == "deliver #0") deliver = e["ts"].get<double>();
  }
  ASSERT_NE(wire, nullptr);
  EXPECT_EQ((*wire)["name"], "data f0 #0");
  const double bytes = (*wire)["args"]["bytes"].get<double>();
  EXPECT_GE(bytes, 1000.0);  // payload plus headers
  // Serialization of the packet plus the link's 20 bytes of preamble and gap at 100 Gb/s, in us.
  const double ser_us = (bytes + 20) * 8 / 100e9 * 1e6;
  EXPECT_NEAR((*wire)["dur"].get<double>(), ser_us, 1e-6);
  EXPECT_DOUBLE_EQ(send, 0.0);
  // It reaches host 1 one serialization and one 1 us propagation after it starts out of the switch, which is
  // no earlier than its tail arriving there: one serialization and 1 us after the send.
  EXPECT_NEAR(deliver, (*wire)["ts"].get<double>() + ser_us + 1.0, 1e-6);
  EXPECT_GE((*wire)["ts"].get<double>(), send + ser_us + 1.0 - 1e-6);
  // The flow's completion time in flows.csv is that delivery.
  const std::string csv = slurp(dir_ / "flows.csv");
  const std::string row = csv.substr(csv.find('\n') + 1);
  std::vector<std::string> c;
  std::stringstream in(row);
  for (std::string x; std::getline(in, x, ',');) c.push_back(x);
  EXPECT_NEAR(std::stod(c[5]) / 1000, deliver, 1e-6) << row;
}

TEST_F(Trace, PcapHasNanosecondEthernetFramesOfTheFlow) {
  const std::string b = slurp(dir_ / "packets.pcap");
  ASSERT_GE(b.size(), 24u);
  EXPECT_EQ(le32(b, 0), 0xa1b23c4du);  // nanosecond pcap
  EXPECT_EQ(le32(b, 20), 1u);          // LINKTYPE_ETHERNET
  // Record 1: the data packet leaving host 0 at 0 ns (48-bit MACs, IPv4 10.0.0.0 -> 10.0.0.1, UDP dport 100).
  ASSERT_GE(b.size(), 24u + 16 + 58);
  EXPECT_EQ(le32(b, 24), 0u);
  EXPECT_EQ(le32(b, 28), 0u);
  EXPECT_EQ(le32(b, 32), 58u);    // captured: Ethernet, IPv4, UDP and the 16-byte netasic shim
  EXPECT_GE(le32(b, 36), 1000u);  // on the wire: the whole packet
  const std::size_t f = 40;
  EXPECT_EQ(static_cast<std::uint8_t>(b[f + 12]), 0x08);
  EXPECT_EQ(static_cast<std::uint8_t>(b[f + 13]), 0x00);
  EXPECT_EQ(static_cast<std::uint8_t>(b[f + 14]), 0x45);
  EXPECT_EQ(static_cast<std::uint8_t>(b[f + 23]), 17);  // UDP
  EXPECT_EQ(b.substr(f + 26, 8), std::string("\x0a\x00\x00\x00\x0a\x00\x00\x01", 8));
  EXPECT_EQ(b.substr(f + 36, 2), std::string("\x00\x64", 2));  // dport 100
  EXPECT_EQ(b.substr(f + 42, 4), "NASC");
  // The IPv4 header checksum verifies: the one's-complement sum over the header is 0xffff.
  std::uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2)
    sum += (static_cast<std::uint8_t>(b[f + 14 + i]) << 8) | static_cast<std::uint8_t>(b[f + 15 + i]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  EXPECT_EQ(sum, 0xffffu);
}

TEST_F(Trace, TcpdumpReadsThePcap) {
  if (shell("command -v tcpdump").status != 0) GTEST_SKIP() << "tcpdump is not installed";
  const Result r = shell("tcpdump -nn -r " + (dir_ / "packets.pcap").string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("IP 10.0.0.0.49152 > 10.0.0.1.100"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("IP 10.0.0.1.100 > 10.0.0.0.49152"), std::string::npos) << "the ACK, back" << r.output;
}

// The same one-packet run sampled every 0.5 us: the packet's serialization on the switch's port to host 1
// shows as busy time, and sampling changes no result.
TEST(TimeSeries, SamplesPortsWithoutChangingResults) {
  const std::string topo = test::write_temp("ts_topo.txt", "3 1 2\n2\n0 2 100Gbps 1000ns 0\n1 2 100Gbps 1000ns 0\n");
  const std::string flows = test::write_temp("ts_flows.txt", "1\n0 1 3 100 1000 0\n");
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-ts-" + std::to_string(getpid()));
  const std::string base = std::string(NETASIC_BINARY) + " run --set topology.type=file --set topology.file=" + topo +
                           " --set workload.type=file --set workload.file=" + flows + " --quiet --out ";
  Result r = shell(base + (dir / "sampled").string() + " --set stats.sample_us=0.5");
  ASSERT_EQ(r.status, 0) << r.output;
  r = shell(base + (dir / "plain").string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(slurp(dir / "sampled" / "flows.csv"), slurp(dir / "plain" / "flows.csv"));
  EXPECT_FALSE(std::filesystem::exists(dir / "plain" / "timeseries.csv"));

  std::stringstream in(slurp(dir / "sampled" / "timeseries.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_us,port,switch,port_index,peer,queue_bytes,utilization,packets,stopped_queues,"
                  "flowcut_entries,flowlet_entries,pause_frames");
  double busy_ns = 0;
  int rows = 0, packets = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream cells(line);
    for (std::string x; std::getline(cells, x, ',');) c.push_back(x);
    ASSERT_EQ(c.size(), 12u) << line;
    ++rows;
    if (c[1] == "sw0p1") {
      EXPECT_EQ(c[4], "host1");
      busy_ns += std::stod(c[6]) * 500;
      packets += std::stoi(c[7]);
    }
  }
  // Samples at 0.5, 1, 1.5 and 2 us (the flow completes at about 2.44 us, ending the run) for 2 ports.
  EXPECT_EQ(rows, 8);
  EXPECT_EQ(packets, 1);
  // One packet of 1064 bytes plus 20 bytes of preamble and gap at 100 Gb/s: 86.72 ns.
  EXPECT_NEAR(busy_ns, 86.72, 1e-3);

  // netasic plot draws it, one line per port.
  r = shell(std::string(NETASIC_BINARY) + " plot " + (dir / "sampled" / "timeseries.csv").string() +
            " --x time_us --y utilization --series port --out " + (dir / "u.png").string());
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "u.png"));
}

// The time series of runs a CSV row cannot be checked by hand for: an incast under PFC, and a permutation
// under Flowcut. The per-switch pause frames of every interval add up to summary.json's count (the last
// pause comes long before the incast drains, so no frame falls after the last sample); queues held by a
// downstream pause show; Flowcut tables hold entries while flows are under way, at most the table's size;
// without Flowcut they are empty.
TEST(TimeSeries, PausesHeldQueuesAndTableOccupancy) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-ts2-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const std::string bin = std::string(NETASIC_BINARY) + " run --quiet --set topology.fat_tree.k=4 --set stats.sample_us=1 ";
  auto rows = [](const std::filesystem::path& csv) {
    std::vector<std::vector<std::string>> out;
    std::stringstream in(slurp(csv));
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      std::vector<std::string> c;
      std::stringstream cells(line);
      for (std::string x; std::getline(cells, x, ',');) c.push_back(x);
      out.push_back(c);
    }
    return out;
  };
  Result r = shell(bin + "--set switch.flow_control=pfc --set workload.type=incast --set workload.incast.senders=12 "
                   "--out " + (dir / "pfc").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto summary = nlohmann::json::parse(slurp(dir / "pfc" / "summary.json"));
  const std::uint64_t total = summary["flow_control"]["pause_frames"].get<std::uint64_t>();
  EXPECT_GT(total, 0u);
  std::uint64_t sampled = 0, held = 0;
  std::set<std::string> counted;  // (time, switch): the switch's frames are on each of its port rows
  for (const auto& c : rows(dir / "pfc" / "timeseries.csv")) {
    ASSERT_EQ(c.size(), 12u);
    if (counted.insert(c[0] + "/" + c[2]).second) sampled += std::stoull(c[11]);
    held += std::stoull(c[8]) > 0;
    EXPECT_EQ(c[9], "0") << "no Flowcut table without Flowcut";
  }
  EXPECT_EQ(sampled, total);
  EXPECT_GT(held, 0u);

  r = shell(bin + "--set routing.policy=flowcut --set flowcut.table.entries=64 --set workload.type=permutation "
                  "--set workload.size_bytes=262144 --out " + (dir / "flowcut").string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::uint64_t most = 0;
  for (const auto& c : rows(dir / "flowcut" / "timeseries.csv")) {
    most = std::max<std::uint64_t>(most, std::stoull(c[9]));
    EXPECT_EQ(c[11], "0") << "no pause frames without flow control";
  }
  EXPECT_GT(most, 0u);
  EXPECT_LE(most, 64u);
  std::filesystem::remove_all(dir);
}

// Holds and flowcuts no wire shows, on the flows' tracks: under ingress-only Flowcut, each flow's
// flowcut instants are flows.csv's `flowcuts` and its hold slices add up to its `drain_ns` (both read the
// same source NIC, so to the picosecond); under FlowSail an incast's senders are paused by the first
// switch, and every pause ends before the run does.
TEST(TraceFlows, HoldsAndFlowcutsOnTheFlowTracks) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-holds-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  const std::string bin = std::string(NETASIC_BINARY) +
                          " run --quiet --set topology.fat_tree.k=4 --set trace.enabled=true --set trace.flows=all ";
  Result r = shell(bin + "--set routing.policy=flowcut --set flowcut.variant=ingress_only --set workload.type=permutation "
                         "--set workload.size_bytes=1048576 --out " + (dir / "fc").string());
  ASSERT_EQ(r.status, 0) << r.output;
  std::map<std::uint32_t, std::uint64_t> flowcuts;
  std::map<std::uint32_t, double> held_ns;
  std::uint64_t holds = 0;
  const auto fc_trace = nlohmann::json::parse(slurp(dir / "fc" / "trace.json"));
  for (const auto& e : fc_trace["traceEvents"]) {
    if (e.value("cat", "") == "flowcut") ++flowcuts[e["tid"].get<std::uint32_t>()];
    if (e.value("cat", "") != "hold") continue;
    ++holds;
    EXPECT_EQ(e["name"], "fgfc pause");
    EXPECT_FALSE(e["args"]["held_at_end"].get<bool>());
    held_ns[e["tid"].get<std::uint32_t>()] += e["dur"].get<double>() * 1000;
  }
  EXPECT_GT(holds, 0u);
  std::stringstream csv(slurp(dir / "fc" / "flows.csv"));
  std::string line;
  std::getline(csv, line);
  ASSERT_EQ(line, "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,slowdown,ooo_packets,path_changes,flowcuts,drains,drain_ns");
  std::uint64_t total_flowcuts = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> c;
    std::stringstream cells(line);
    for (std::string x; std::getline(cells, x, ',');) c.push_back(x);
    const auto id = static_cast<std::uint32_t>(std::stoul(c[0]));
    EXPECT_EQ(flowcuts[id], std::stoull(c[10])) << "flow " << id;
    EXPECT_NEAR(held_ns[id], std::stod(c[12]), 1e-3) << "flow " << id;
    total_flowcuts += std::stoull(c[10]);
  }
  EXPECT_GT(total_flowcuts, 0u);

  r = shell(bin + "--set switch.flow_control=flowsail --set workload.type=incast --set workload.incast.senders=12 --out " +
            (dir / "fs").string());
  ASSERT_EQ(r.status, 0) << r.output;
  holds = 0;
  const auto fs_trace = nlohmann::json::parse(slurp(dir / "fs" / "trace.json"));
  for (const auto& e : fs_trace["traceEvents"]) {
    if (e.value("cat", "") != "hold") continue;
    ++holds;
    EXPECT_EQ(e["name"], "hop pause");
    EXPECT_FALSE(e["args"]["held_at_end"].get<bool>());
    EXPECT_GT(e["dur"].get<double>(), 0);
  }
  EXPECT_GT(holds, 0u);
  std::filesystem::remove_all(dir);
}

// netasic plot on a file that is not a CSV with a header: exit 2 and one line naming the file.
TEST(PlotInput, NonCsvIsBadInputNotATraceback) {
  const std::string bin = NETASIC_BINARY;
  const std::string binary = test::write_temp("not.csv", std::string("\xd4\xc3\xb2\xa1\x00\x01binary", 12));
  const std::string json = test::write_temp("summary.csv", "{\n  \"flows\": 1\n}\n");
  const std::string short_row = test::write_temp("short.csv", "a,b\n1,2\n3\n");
  struct Case {
    std::string file, message;
  } cases[] = {{binary, binary + " is not a CSV file ("},
               {json, json + " is not a CSV file with a header line of column names"},
               {short_row, "line 3: the row has no 'b' field (fewer fields than the header)"},
               {std::filesystem::temp_directory_path().string(), " is a directory, not a CSV file"}};
  for (const Case& c : cases) {
    const Result r = shell(bin + " plot " + c.file + " --x a --y b --out /tmp/netasic-plot-bad.png");
    EXPECT_EQ(r.status, 2) << c.file << ": " << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Traceback"), std::string::npos) << r.output;
  }
}

TEST(TraceKeys, AnEmptySelectionOrABadIdIsBadInput) {
  const std::string bin = NETASIC_BINARY;
  Result r = shell(bin + " run --set topology.fat_tree.k=4 --set trace.enabled=true --quiet --out /tmp/netasic-trace-bad");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("trace.flows and trace.switches select nothing"), std::string::npos) << r.output;
  r = shell(bin + " run --set topology.fat_tree.k=4 --set trace.enabled=true --set trace.switches=99 --quiet --out /tmp/netasic-trace-bad");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("trace.switches: 99 is not a switch id (0..19) or all (set by --set trace.switches)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace netasic
