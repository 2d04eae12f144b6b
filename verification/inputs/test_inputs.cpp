// Unit tests of the input-file parsers (tb/inputs): every error names its file, line and problem; valid
// files parse to the values written; the built-in CDFs load and sample with the right statistics.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "tb/inputs/cdf.h"
#include "tb/inputs/flow_file.h"
#include "tb/inputs/topology_file.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

// The message of the InputError `f` throws, or a test failure if it throws none.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

void expect_error(const std::function<void()>& f, const std::string& prefix, const std::string& part) {
  const std::string message = error_of(f);
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << "message: " << message << "\nexpected prefix: " << prefix;
  EXPECT_NE(message.find(part), std::string::npos) << "message: " << message << "\nexpected part: " << part;
}

// Replaces line `n` (1-based) of `text`; an empty replacement keeps an empty line so numbering holds.
std::string with_line(const std::string& text, int n, const std::string& replacement) {
  std::istringstream in(text);
  std::string line, out;
  for (int i = 1; std::getline(in, line); ++i) out += (i == n ? replacement : line) + "\n";
  return out;
}

// A file in the test's temporary directory, removed at the end of the test.
class TempFile {
 public:
  TempFile(const std::string& stem, const std::string& contents)
      : path_(std::filesystem::path(::testing::TempDir()) /
              (stem + "_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt")) {
    std::ofstream(path_, std::ios::binary) << contents;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

struct ErrorCase {
  const char* label;
  std::string text;
  int line;
  const char* part;
};

// Names the case in gtest's listing instead of dumping its bytes.
void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.label; }

std::string case_name(const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.label; }

// ---------------------------------------------------------------------------------------------------------
// Topology file

// Hosts 0..3, switches 4 and 5; two parallel links between the switches.
const std::string kTopo =
    "6 2 6\n"
    "4 5\n"
    "0 4 100Gbps 1000ns 0\n"
    "1 4 100Gbps 1000ns 0\n"
    "2 5 100Gbps 1000ns 0\n"
    "3 5 100Gbps 1000ns 0\n"
    "4 5 400Gbps 1000ns 0\n"
    "4 5 400Gbps 1000ns 0\n";

TEST(TopologyFile, ParsesValidFileWithCommentsBlankLinesAndUnits) {
  const std::string text =
      "# leaf-spine toy\n"
      "\n"
      "6 2 6\r\n"
      "  # switch ids\n"
      "4\t5\n"
      "0 4 100Gbps 1000ns 0\n"
      "1 4 25000Mbps 0.001ms 0.001\n"
      "\n"
      "2 5 1Tbps 500ps 0.999\n"
      "3 5 10000kbps 1us 0\n"
      "4 5 400Gbps 1s 0\n"
      "5 4 2e9bps 0ns 0";  // no final newline
  const TopologyFile t = parse_topology_file_text(text, "toy.txt");
  EXPECT_EQ(t.name, "toy.txt");
  EXPECT_EQ(t.node_count, 6u);
  EXPECT_EQ(t.switch_ids, (std::vector<std::uint32_t>{4, 5}));
  ASSERT_EQ(t.links.size(), 6u);
  EXPECT_EQ(t.links[0].a, 0u);
  EXPECT_EQ(t.links[0].b, 4u);
  EXPECT_DOUBLE_EQ(t.links[0].rate_gbps, 100);
  EXPECT_DOUBLE_EQ(t.links[0].delay_ns, 1000);
  EXPECT_EQ(t.links[0].line, 6);
  EXPECT_DOUBLE_EQ(t.links[1].rate_gbps, 25);
  EXPECT_DOUBLE_EQ(t.links[1].delay_ns, 1000);
  EXPECT_DOUBLE_EQ(t.links[1].error_rate, 0.001);
  EXPECT_EQ(t.links[2].line, 9);
  EXPECT_DOUBLE_EQ(t.links[2].rate_gbps, 1000);
  EXPECT_DOUBLE_EQ(t.links[2].delay_ns, 0.5);
  EXPECT_DOUBLE_EQ(t.links[2].error_rate, 0.999);  // below 1: every packet lost would resend forever
  EXPECT_DOUBLE_EQ(t.links[3].rate_gbps, 1e-2);     // at least 0.001 Gb/s, the range of link.rate_gbps
  EXPECT_DOUBLE_EQ(t.links[3].delay_ns, 1000);
  EXPECT_DOUBLE_EQ(t.links[4].delay_ns, 1e9);
  EXPECT_EQ(t.links[5].a, 5u);
  EXPECT_EQ(t.links[5].b, 4u);
  EXPECT_DOUBLE_EQ(t.links[5].rate_gbps, 2);
  EXPECT_DOUBLE_EQ(t.links[5].delay_ns, 0);
}

// HPCC's topology files end with prose after the declared links; its reader never reads them.
TEST(TopologyFile, LinesAfterTheDeclaredLinksAreIgnored) {
  const TopologyFile t =
      parse_topology_file_text(kTopo + "\nThe first line: nodes, switches, links.\nThen switch ids.\n", "topo.txt");
  EXPECT_EQ(t.links.size(), 6u);
  EXPECT_EQ(t.node_count, 6u);
}

TEST(TopologyFile, KeepsParallelLinksBetweenSwitches) {
  const TopologyFile t = parse_topology_file_text(kTopo, "t.txt");
  ASSERT_EQ(t.links.size(), 6u);
  EXPECT_EQ(t.links[4].a, t.links[5].a);
  EXPECT_EQ(t.links[4].b, t.links[5].b);
  EXPECT_EQ(t.links[4].line, 7);
  EXPECT_EQ(t.links[5].line, 8);
}

TEST(TopologyFile, FileRoundTrip) {
  const TempFile file("topo", kTopo);
  const TopologyFile from_file = read_topology_file(file.path());
  const TopologyFile from_text = parse_topology_file_text(kTopo, file.path());
  EXPECT_EQ(from_file.name, file.path());
  EXPECT_EQ(from_file.node_count, from_text.node_count);
  EXPECT_EQ(from_file.switch_ids, from_text.switch_ids);
  ASSERT_EQ(from_file.links.size(), from_text.links.size());
  for (std::size_t i = 0; i < from_file.links.size(); ++i) {
    EXPECT_EQ(from_file.links[i].a, from_text.links[i].a);
    EXPECT_EQ(from_file.links[i].b, from_text.links[i].b);
    EXPECT_EQ(from_file.links[i].rate_gbps, from_text.links[i].rate_gbps);
    EXPECT_EQ(from_file.links[i].delay_ns, from_text.links[i].delay_ns);
    EXPECT_EQ(from_file.links[i].error_rate, from_text.links[i].error_rate);
    EXPECT_EQ(from_file.links[i].line, from_text.links[i].line);
  }
}

TEST(TopologyFile, ErrorInFileNamesThePath) {
  const TempFile file("topo_bad", with_line(kTopo, 3, "0 99 100Gbps 1000ns 0"));
  expect_error([&] { read_topology_file(file.path()); },
               file.path() + ":3: ", "link names node 99 but the file declares 6 nodes (ids 0..5)");
}

TEST(TopologyFile, MissingFileAndDirectory) {
  expect_error([] { read_topology_file("/nonexistent/topo.txt"); },
               "/nonexistent/topo.txt: ", "cannot open topology file");
  expect_error([] { read_topology_file(::testing::TempDir()); }, ::testing::TempDir() + ": ", "it is a directory");
}

TEST(TopologyFile, ReportsBriefExampleMessage) {
  std::string text = "330 10 320\n";
  for (int s = 320; s < 330; ++s) text += std::to_string(s) + (s < 329 ? " " : "\n");
  for (int h = 0; h < 320; ++h) text += std::to_string(h) + " " + std::to_string(320 + h % 10) + " 100Gbps 1000ns 0\n";
  EXPECT_NO_THROW(parse_topology_file_text(text, "topo.txt"));
  // Line 7 of the file is the 5th link line.
  expect_error([&] { parse_topology_file_text(with_line(text, 7, "4 999 100Gbps 1000ns 0"), "topo.txt"); },
               "topo.txt:7: ", "link names node 999 but the file declares 330 nodes (ids 0..329)");
}

class TopologyFileError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(TopologyFileError, NamesLineAndProblem) {
  const ErrorCase& c = GetParam();
  expect_error([&] { parse_topology_file_text(c.text, "topo.txt"); }, "topo.txt:" + std::to_string(c.line) + ": ",
               c.part);
}

const ErrorCase kTopologyErrors[] = {
    {"Empty", "", 1, "the topology file is empty"},
    {"OnlyComments", "# nothing\n\n", 2, "the topology file is empty"},
    {"HeaderTooFewFields", with_line(kTopo, 1, "6 2"), 1,
     "the first line must be 'node_count switch_count link_count', found 2 fields"},
    {"HeaderTrailingGarbage", with_line(kTopo, 1, "6 2 6 x"), 1,
     "trailing garbage 'x' after 'node_count switch_count link_count'"},
    {"NodeCountNotNumber", with_line(kTopo, 1, "six 2 6"), 1,
     "node_count must be a non-negative whole number, got 'six'"},
    {"NodeCountNegative", with_line(kTopo, 1, "-6 2 6"), 1, "node_count must be a non-negative whole number, got '-6'"},
    {"NodeCountFractional", with_line(kTopo, 1, "6.5 2 6"), 1,
     "node_count must be a non-negative whole number, got '6.5'"},
    {"NodeCountZero", with_line(kTopo, 1, "0 2 6"), 1, "node_count is 0"},
    {"SwitchCountZero", with_line(kTopo, 1, "6 0 6"), 1, "switch_count is 0"},
    {"LinkCountZero", with_line(kTopo, 1, "6 2 0"), 1, "link_count is 0"},
    {"SwitchCountAboveNodeCount", with_line(kTopo, 1, "6 7 6"), 1, "switch_count 7 is larger than node_count 6"},
    {"NodeCountAboveMaximum", with_line(kTopo, 1, "4000000000 2 6"), 1,
     "node_count 4000000000 is above the supported maximum of 16777216 nodes"},
    {"MissingSwitchLine", "6 2 6\n", 1, "the file ends after line 1; the next line must list the 2 switch ids"},
    {"TooFewSwitchIds", with_line(kTopo, 2, "4"), 2,
     "lists 1 switch id but line 1 declares switch_count 2; all switch ids go on this one line"},
    {"TooManySwitchIds", with_line(kTopo, 2, "4 5 3"), 2, "lists 3 switch ids but line 1 declares switch_count 2"},
    {"SwitchIdOutOfRange", with_line(kTopo, 2, "4 6"), 2,
     "switch id names node 6 but the file declares 6 nodes (ids 0..5)"},
    {"SwitchIdDuplicate", with_line(kTopo, 2, "4 4"), 2, "switch id 4 is listed twice"},
    {"SwitchIdNotNumber", with_line(kTopo, 2, "4 s5"), 2, "switch id must be a non-negative whole number, got 's5'"},
    {"TooFewLinkLines", with_line(kTopo, 8, "# gone"), 8,
     "the file ends after 5 link lines but line 1 declares link_count 6"},
    {"LinkTooFewFields", with_line(kTopo, 3, "0 4 100Gbps 1000ns"), 3,
     "a link line needs 5 fields 'src dst rate delay error_rate', found 4"},
    {"LinkTrailingGarbage", with_line(kTopo, 3, "0 4 100Gbps 1000ns 0 extra"), 3,
     "trailing garbage 'extra' after the 5 fields 'src dst rate delay error_rate'"},
    {"LinkNodeOutOfRange", with_line(kTopo, 3, "0 999 100Gbps 1000ns 0"), 3,
     "link names node 999 but the file declares 6 nodes (ids 0..5)"},
    {"LinkSrcOutOfRange", with_line(kTopo, 3, "6 4 100Gbps 1000ns 0"), 3,
     "link names node 6 but the file declares 6 nodes (ids 0..5)"},
    {"LinkSrcNotNumber", with_line(kTopo, 3, "h0 4 100Gbps 1000ns 0"), 3,
     "link src must be a non-negative whole number, got 'h0'"},
    {"LinkDstNegative", with_line(kTopo, 3, "0 -4 100Gbps 1000ns 0"), 3,
     "link dst must be a non-negative whole number, got '-4'"},
    {"SelfLink", with_line(kTopo, 7, "4 4 400Gbps 1000ns 0"), 7, "link connects node 4 to itself"},
    {"RateZero", with_line(kTopo, 3, "0 4 0Gbps 1000ns 0"), 3, "rate must be positive, got '0Gbps'"},
    {"RateNegative", with_line(kTopo, 3, "0 4 -100Gbps 1000ns 0"), 3, "rate must be positive, got '-100Gbps'"},
    {"RateUnknownUnit", with_line(kTopo, 3, "0 4 100Gbs 1000ns 0"), 3,
     "rate '100Gbs' has unknown unit 'Gbs'; accepted units: bps, Kbps, kbps, Mbps, Gbps, Tbps (e.g. 100Gbps)"},
    {"RateWrongCase", with_line(kTopo, 3, "0 4 100gbps 1000ns 0"), 3, "has unknown unit 'gbps'"},
    {"RateNoUnit", with_line(kTopo, 3, "0 4 100 1000ns 0"), 3, "rate '100' has no unit; accepted units: bps"},
    {"RateInBytes", with_line(kTopo, 3, "0 4 12GBps 1000ns 0"), 3,
     "rate '12GBps' is in bytes per second; write bits per second: bps, Kbps"},
    {"RateNotNumber", with_line(kTopo, 3, "0 4 fast 1000ns 0"), 3,
     "rate 'fast' must be a number followed by a unit: bps, Kbps"},
    {"RateInfinite", with_line(kTopo, 3, "0 4 infGbps 1000ns 0"), 3,
     "rate 'infGbps' must be a number followed by a unit"},
    {"DelayNegative", with_line(kTopo, 3, "0 4 100Gbps -1ns 0"), 3, "delay must not be negative, got '-1ns'"},
    {"DelayNoUnit", with_line(kTopo, 3, "0 4 100Gbps 1000 0"), 3,
     "delay '1000' has no unit; accepted units: ps, ns, us, ms, s"},
    {"DelayUnknownUnit", with_line(kTopo, 3, "0 4 100Gbps 1000sec 0"), 3,
     "delay '1000sec' has unknown unit 'sec'; accepted units: ps, ns, us, ms, s"},
    {"DelayTooLarge", with_line(kTopo, 3, "0 4 100Gbps 2000s 0"), 3,
     "delay '2000s' is above the supported maximum of 1000s"},
    {"DelayNotNumber", with_line(kTopo, 3, "0 4 100Gbps short 0"), 3,
     "delay 'short' must be a number followed by a unit: ps, ns"},
    {"ErrorRateAboveOne", with_line(kTopo, 3, "0 4 100Gbps 1000ns 1.5"), 3, "error_rate '1.5' is outside [0, 1)"},
    {"ErrorRateOne", with_line(kTopo, 3, "0 4 100Gbps 1000ns 1"), 3,
     "error_rate '1' is outside [0, 1) (a packet loss probability; 0 <= error_rate < 1)"},
    {"RateBelowMinimum", with_line(kTopo, 3, "0 4 0.5Mbps 1000ns 0"), 3,
     "rate '0.5Mbps' is outside the supported 0.001Gbps (1Mbps) .. 100000Gbps (100Tbps)"},
    {"RateTinyActsInfinitelyFast", with_line(kTopo, 3, "0 4 0.003bps 1000ns 0"), 3, "rate '0.003bps' is outside"},
    {"RateAboveMaximum", with_line(kTopo, 3, "0 4 101Tbps 1000ns 0"), 3,
     "rate '101Tbps' is outside the supported 0.001Gbps (1Mbps) .. 100000Gbps (100Tbps), the range of link.rate_gbps"},
    {"ErrorRateNegative", with_line(kTopo, 3, "0 4 100Gbps 1000ns -0.1"), 3, "error_rate '-0.1' is outside [0, 1)"},
    {"ErrorRateNotNumber", with_line(kTopo, 3, "0 4 100Gbps 1000ns none"), 3,
     "error_rate must be a number, got 'none'"},
    {"ErrorRateNaN", with_line(kTopo, 3, "0 4 100Gbps 1000ns nan"), 3, "error_rate must be a finite number, got 'nan'"},
    {"HostsLinkMovedAway", with_line(kTopo, 4, "0 5 100Gbps 1000ns 0"), 1,
     "node 1 is a host (not in the switch list on line 2) but no link line names it; every host needs at least one "
     "link"},
    {"HostWithoutLink", with_line(kTopo, 1, "7 2 6"), 1,
     "node 6 is a host (not in the switch list on line 2) but no link line names it; every host needs at least one "
     "link"},
    {"TwoHostsWithoutLink", with_line(kTopo, 1, "8 2 6"), 1, "but no link line names it (nor does host 7)"},
    {"SeveralHostsWithoutLink", with_line(kTopo, 1, "9 2 6"), 1,
     "node 6 is a host (not in the switch list on line 2) but no link line names it (nor do hosts 7, 8)"},
    {"LinkBetweenHosts", with_line(kTopo, 3, "0 1 100Gbps 1000ns 0"), 3,
     "link joins two hosts, 0 and 1 (neither is in the switch list on line 2); a host must link to a switch"},
    {"BinaryGarbage", std::string("\x01\xff 2 6\n"), 1,
     "node_count must be a non-negative whole number, got '\\x01\\xff'"},
    {"LineNumbersCountCommentsAndBlanks", "# header follows\n\n" + with_line(kTopo, 3, "0 4 100Gbps 1000ns 2"), 5,
     "error_rate '2' is outside [0, 1)"},
};
INSTANTIATE_TEST_SUITE_P(Cases, TopologyFileError, ::testing::ValuesIn(kTopologyErrors), case_name);

// ---------------------------------------------------------------------------------------------------------
// Flow file

const std::string kFlows =
    "3\n"
    "0 1 3 100 200000000 2\n"
    "1 2 0 65535 1 0\n"
    "2 0 7 0 18446744073709551615 1.5e-6\n";

TEST(FlowFile, ParsesValidFile) {
  const std::vector<FlowFileEntry> f = parse_flow_file_text("# flows\n" + kFlows, "flow.txt");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].src, 0u);
  EXPECT_EQ(f[0].dst, 1u);
  EXPECT_EQ(f[0].priority, 3u);
  EXPECT_EQ(f[0].dport, 100u);
  EXPECT_EQ(f[0].size_bytes, 200000000u);
  EXPECT_DOUBLE_EQ(f[0].start_s, 2.0);
  EXPECT_EQ(f[0].line, 3);
  EXPECT_EQ(f[1].dport, 65535u);
  EXPECT_EQ(f[1].size_bytes, 1u);
  EXPECT_DOUBLE_EQ(f[1].start_s, 0.0);
  EXPECT_EQ(f[2].priority, 7u);
  EXPECT_EQ(f[2].size_bytes, 18446744073709551615u);
  EXPECT_DOUBLE_EQ(f[2].start_s, 1.5e-6);
  EXPECT_EQ(f[2].line, 5);
}

// HPCC's reader reads the declared count and ignores what follows; its published files rely on that.
TEST(FlowFile, LinesAfterTheDeclaredCountAreIgnored) {
  const std::vector<FlowFileEntry> f =
      parse_flow_file_text(with_line(kFlows, 1, "2") + "these are notes, not flows\n", "flow.txt");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].line, 3);
  EXPECT_EQ(f[1].size_bytes, 1u);
}

// ConWeave's generator writes 'src dst priority size start' lines: no dport, taken as HPCC's 100.
TEST(FlowFile, ConWeaveFiveFieldLines) {
  const std::vector<FlowFileEntry> f =
      parse_flow_file_text("2\n0 1 3 200000000 2\n5 4 0 1000 1.5e-6\n", "flow.txt");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].src, 0u);
  EXPECT_EQ(f[0].dst, 1u);
  EXPECT_EQ(f[0].priority, 3u);
  EXPECT_EQ(f[0].dport, 100u);
  EXPECT_EQ(f[0].size_bytes, 200000000u);
  EXPECT_DOUBLE_EQ(f[0].start_s, 2.0);
  EXPECT_EQ(f[1].src, 5u);
  EXPECT_EQ(f[1].size_bytes, 1000u);
  EXPECT_DOUBLE_EQ(f[1].start_s, 1.5e-6);
}

TEST(FlowFile, ZeroFlowsIsValid) { EXPECT_TRUE(parse_flow_file_text("0\n", "flow.txt").empty()); }

TEST(FlowFile, FileRoundTrip) {
  const TempFile file("flow", kFlows);
  const std::vector<FlowFileEntry> from_file = read_flow_file(file.path());
  const std::vector<FlowFileEntry> from_text = parse_flow_file_text(kFlows, "x");
  ASSERT_EQ(from_file.size(), from_text.size());
  for (std::size_t i = 0; i < from_file.size(); ++i) {
    EXPECT_EQ(from_file[i].src, from_text[i].src);
    EXPECT_EQ(from_file[i].dst, from_text[i].dst);
    EXPECT_EQ(from_file[i].priority, from_text[i].priority);
    EXPECT_EQ(from_file[i].dport, from_text[i].dport);
    EXPECT_EQ(from_file[i].size_bytes, from_text[i].size_bytes);
    EXPECT_EQ(from_file[i].start_s, from_text[i].start_s);
    EXPECT_EQ(from_file[i].line, from_text[i].line);
  }
  const TempFile bad("flow_bad", with_line(kFlows, 3, "1 2 0 65535 0 0"));
  expect_error([&] { read_flow_file(bad.path()); }, bad.path() + ":3: ", "size_bytes is 0");
  expect_error([] { read_flow_file("/nonexistent/flow.txt"); }, "/nonexistent/flow.txt: ", "cannot open flow file");
}

class FlowFileError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(FlowFileError, NamesLineAndProblem) {
  const ErrorCase& c = GetParam();
  expect_error([&] { parse_flow_file_text(c.text, "flow.txt"); }, "flow.txt:" + std::to_string(c.line) + ": ", c.part);
}

const ErrorCase kFlowErrors[] = {
    {"Empty", "\n", 1, "the flow file is empty"},
    {"CountNotNumber", with_line(kFlows, 1, "three"), 1, "flow count must be a non-negative whole number, got 'three'"},
    {"CountTrailingGarbage", with_line(kFlows, 1, "3 x"), 1, "trailing garbage 'x' after the flow count"},
    {"TooFewLines", with_line(kFlows, 1, "4"), 4, "the file ends after 3 flow lines but line 1 declares 4 flows"},
    {"TooFewFields", with_line(kFlows, 2, "0 1 3 100"), 2,
     "a flow line needs 6 fields 'src dst priority dport size_bytes start_seconds' (or ConWeave's 5, 'src dst "
     "priority size_bytes start_seconds'), found 4"},
    {"LayoutsMixedHpccFirst", with_line(kFlows, 3, "1 2 0 1 0"), 3,
     "has 5 fields but line 2 has 6; every flow line of a file uses one layout, 'src dst priority dport "
     "size_bytes start_seconds'"},
    {"LayoutsMixedConWeaveFirst", "2\n0 1 3 200000000 2\n1 2 0 100 1 0\n", 3,
     "has 6 fields but line 2 has 5; every flow line of a file uses one layout, 'src dst priority size_bytes "
     "start_seconds'"},
    {"TrailingGarbage", with_line(kFlows, 2, "0 1 3 100 200000000 2 x"), 2,
     "trailing garbage 'x' after the 6 fields 'src dst priority dport size_bytes start_seconds'"},
    {"SizeZero", with_line(kFlows, 2, "0 1 3 100 0 2"), 2, "size_bytes is 0; a flow carries at least 1 byte"},
    {"SizeNotWhole", with_line(kFlows, 2, "0 1 3 100 1e6 2"), 2,
     "size_bytes must be a non-negative whole number, got '1e6'"},
    {"SizeTooLarge", with_line(kFlows, 2, "0 1 3 100 18446744073709551616 2"), 2,
     "size_bytes must be a non-negative whole number, got '18446744073709551616'"},
    {"StartNegative", with_line(kFlows, 2, "0 1 3 100 200000000 -1"), 2,
     "start_seconds must not be negative, got '-1'"},
    {"StartInfinite", with_line(kFlows, 2, "0 1 3 100 200000000 inf"), 2,
     "start_seconds must be a finite number, got 'inf'"},
    {"StartNaN", with_line(kFlows, 2, "0 1 3 100 200000000 nan"), 2,
     "start_seconds must be a finite number, got 'nan'"},
    {"StartOverflow", with_line(kFlows, 2, "0 1 3 100 200000000 1e999"), 2,
     "start_seconds must be a finite number, got '1e999'"},
    {"StartTooLate", with_line(kFlows, 2, "0 1 3 100 200000000 2e6"), 2,
     "start_seconds '2e6' is beyond the supported 1000000 s of simulated time"},
    {"StartWithUnit", with_line(kFlows, 2, "0 1 3 100 200000000 2s"), 2, "start_seconds must be a number, got '2s'"},
    {"SrcEqualsDst", with_line(kFlows, 3, "2 2 0 65535 1 0"), 3, "flow goes from node 2 to itself"},
    {"DportTooLarge", with_line(kFlows, 2, "0 1 3 65536 200000000 2"), 2,
     "dport must be a whole number in 0..65535, got '65536'"},
    {"PriorityTooLarge", with_line(kFlows, 2, "0 1 8 100 200000000 2"), 2,
     "priority (traffic class) must be a whole number in 0..7, got '8'"},
    {"SrcNotNumber", with_line(kFlows, 2, "h0 1 3 100 200000000 2"), 2,
     "src must be a whole number in 0..4294967295, got 'h0'"},
    {"DstNegative", with_line(kFlows, 2, "0 -1 3 100 200000000 2"), 2,
     "dst must be a whole number in 0..4294967295, got '-1'"},
};
INSTANTIATE_TEST_SUITE_P(Cases, FlowFileError, ::testing::ValuesIn(kFlowErrors), case_name);

// ---------------------------------------------------------------------------------------------------------
// Flow-size CDF

class CdfError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(CdfError, NamesLineAndProblem) {
  const ErrorCase& c = GetParam();
  expect_error([&] { FlowSizeCdf::parse(c.text, "my.cdf"); }, "my.cdf:" + std::to_string(c.line) + ": ", c.part);
}

const ErrorCase kCdfErrors[] = {
    {"Empty", "", 1, "the CDF file has no data lines"},
    {"OneColumn", "100\n200\n", 1, "a CDF line has 2 columns 'bytes cdf_percent' (HPCC) or 3 columns"},
    {"FourColumns", "0 1 0 0\n", 1, "found 4"},
    {"MixedFormats", "0 0\n100 1 100\n", 2,
     "found 3 columns but line 1 set the 2-column HPCC format 'bytes cdf_percent'; formats cannot be mixed"},
    {"MixedFormatsVl2", "1 1 0\n2 1\n", 2, "found 2 columns but line 1 set the 3-column VL2 format"},
    {"SizeDecreasing", "0 0\n200 50\n100 100\n", 3,
     "size '100' is smaller than 200 on line 2; sizes must not decrease"},
    {"CdfDecreasing", "0 0\n100 60\n200 50\n300 100\n", 3,
     "cdf '50' is smaller than 60 on line 2; a CDF must not decrease"},
    {"CdfAbove100", "0 0\n100 101\n", 2, "cdf '101' is outside 0..100"},
    {"CdfNegative", "0 -1\n100 100\n", 1, "cdf '-1' is outside 0..100"},
    {"Vl2GivenPercent", "1 1 0\n10 1 100\n", 2,
     "cdf '100' is outside 0..1; the 3-column VL2 format 'packets 1 cdf_fraction' takes fractions"},
    {"LastNot100", "0 0\n100 50\n200 99.9\n", 3, "the last point's cdf is 99.9 but must be exactly 100"},
    {"FractionsInPercentFormat", "0 0\n100 0.5\n200 1\n", 3,
     "the last point's cdf is 1 but must be exactly 100; the values look like fractions"},
    {"Vl2LastNot1", "1 1 0\n2 1 0.9\n", 2, "the last point's cdf is 0.9 but must be exactly 1"},
    {"OnePoint", "# only one\n100 100\n", 2,
     "a CDF needs at least two points (the smallest and the largest size), found 1"},
    {"NegativeSize", "-1 0\n100 100\n", 1, "size in bytes must not be negative, got '-1'"},
    {"SizeNotNumber", "0 0\nbig 100\n", 2, "size in bytes must be a number, got 'big'"},
    {"SizeNaN", "0 0\nnan 100\n", 2, "size in bytes must be a finite number, got 'nan'"},
    {"CdfNotNumber", "0 0\n100 all\n", 2, "cdf_percent must be a number, got 'all'"},
    {"Vl2MiddleNotNumber", "1 x 0\n2 1 1\n", 1, "middle column (normally 1) must be a number, got 'x'"},
    {"AllSizesZero", "0 0\n0 100\n", 2,
     "the largest size a flow can take is 0 bytes; a flow-size CDF needs a largest size of at least 1 byte"},
    {"Vl2AllSizesZero", "0 1 0\n0 1 0.5\n0 1 1\n", 3, "the largest size a flow can take is 0 bytes"},
    {"LargestReachableSizeBelowAByte", "0 0\n0.4 100\n5 100\n", 3, "the largest size a flow can take is 0.4 bytes"},
    {"SizeTooLarge", "0 0\n1e20 100\n", 2, "size '1e20' is above the largest supported flow of 2^53 bytes"},
};
INSTANTIATE_TEST_SUITE_P(Cases, CdfError, ::testing::ValuesIn(kCdfErrors), case_name);

// The CDF of the piecewise-linear distribution, computed forward (independently of quantile()).
double forward_cdf(const std::vector<CdfPoint>& p, double bytes) {
  double f = bytes >= p[0].bytes ? p[0].cdf : 0;
  for (std::size_t i = 1; i < p.size(); ++i) {
    const double mass = p[i].cdf - p[i - 1].cdf;
    if (p[i].bytes == p[i - 1].bytes)
      f += bytes >= p[i].bytes ? mass : 0;
    else
      f += mass * std::clamp((bytes - p[i - 1].bytes) / (p[i].bytes - p[i - 1].bytes), 0.0, 1.0);
  }
  return f;
}

// Mean and standard deviation from the points (independently of mean_bytes()).
void moments(const std::vector<CdfPoint>& p, double& mean, double& sd) {
  double m1 = p[0].cdf * p[0].bytes, m2 = p[0].cdf * p[0].bytes * p[0].bytes;
  for (std::size_t i = 1; i < p.size(); ++i) {
    const double mass = p[i].cdf - p[i - 1].cdf, a = p[i - 1].bytes, b = p[i].bytes;
    m1 += mass * (a + b) / 2;
    m2 += mass * (a * a + a * b + b * b) / 3;
  }
  mean = m1;
  sd = std::sqrt(std::max(0.0, m2 - m1 * m1));
}

TEST(FlowSizeCdf, BuiltinNames) {
  EXPECT_EQ(FlowSizeCdf::builtin_names(),
            (std::vector<std::string>{"websearch", "fbhdp", "googlerpc", "alistorage", "datamining"}));
}

TEST(FlowSizeCdf, EveryBuiltinLoads) {
  struct Expect {
    const char* name;
    std::size_t points;
    std::uint64_t min, max;
  };
  const Expect expected[] = {{"websearch", 12, 1, 30000000},
                             {"fbhdp", 20, 1, 10000000},
                             {"googlerpc", 843, 1, 15158197},
                             {"alistorage", 9, 1, 2000000},
                             {"datamining", 9, 1460, 666667ull * 1460}};
  for (const Expect& e : expected) {
    SCOPED_TRACE(e.name);
    const FlowSizeCdf cdf = FlowSizeCdf::builtin(e.name);
    EXPECT_EQ(cdf.name(), e.name);
    EXPECT_EQ(cdf.points().size(), e.points);
    EXPECT_EQ(cdf.min_bytes(), e.min);
    EXPECT_EQ(cdf.max_bytes(), e.max);
    EXPECT_EQ(cdf.points().back().cdf, 1.0);
    double mean = 0, sd = 0;
    moments(cdf.points(), mean, sd);
    EXPECT_NEAR(cdf.mean_bytes(), mean, 1e-9 * mean);
  }
  // Means worked out by hand from the published points.
  EXPECT_NEAR(FlowSizeCdf::builtin("websearch").mean_bytes(), 1711250.0, 1e-6);
  EXPECT_NEAR(FlowSizeCdf::builtin("alistorage").mean_bytes(), 40869.8, 1e-6);
}

TEST(FlowSizeCdf, UnknownBuiltinListsNames) {
  expect_error([] { FlowSizeCdf::builtin("hadoop"); }, "unknown built-in CDF 'hadoop'",
               "the built-ins are websearch, fbhdp, googlerpc, alistorage, datamining");
  expect_error([] { FlowSizeCdf::builtin("WebSearch"); }, "unknown built-in CDF 'WebSearch'",
               "(did you mean 'websearch'?)");
}

TEST(FlowSizeCdf, FromSpecTakesBuiltinOrPath) {
  EXPECT_EQ(FlowSizeCdf::from_spec("googlerpc").name(), "googlerpc");
  const TempFile file("mycdf", "100 0\n300 100\n");
  const FlowSizeCdf cdf = FlowSizeCdf::from_spec(file.path());
  EXPECT_EQ(cdf.name(), file.path());
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 200);
  EXPECT_EQ(FlowSizeCdf::load(file.path()).points().size(), 2u);
  expect_error([] { FlowSizeCdf::from_spec("webserch"); }, "CDF 'webserch' is neither a built-in (websearch, fbhdp",
               "nor an existing file (did you mean 'websearch'?)");
  expect_error([] { FlowSizeCdf::from_spec("/nonexistent/cdf.txt"); }, "CDF '/nonexistent/cdf.txt' is neither",
               "nor an existing file");
  expect_error([] { FlowSizeCdf::from_spec(""); }, "empty CDF", "websearch");
  const TempFile bad("badcdf", "0 0\n100 50\n");
  expect_error([&] { FlowSizeCdf::from_spec(bad.path()); }, bad.path() + ":2: ", "must be exactly 100");
  expect_error([] { FlowSizeCdf::load("/nonexistent/cdf.txt"); }, "/nonexistent/cdf.txt: ", "cannot open CDF file");
}

TEST(FlowSizeCdf, Vl2FormatScalesPacketsTo1460Bytes) {
  const FlowSizeCdf cdf = FlowSizeCdf::parse("1 1 0\n2 1 1\n", "vl2");
  ASSERT_EQ(cdf.points().size(), 2u);
  EXPECT_DOUBLE_EQ(cdf.points()[0].bytes, 1460);
  EXPECT_DOUBLE_EQ(cdf.points()[1].bytes, 2920);
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 2190);
  EXPECT_EQ(cdf.min_bytes(), 1460u);
  EXPECT_EQ(cdf.max_bytes(), 2920u);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.25), 1825);
  // The middle column is ignored, as ns-2 does.
  EXPECT_DOUBLE_EQ(FlowSizeCdf::parse("1 7 0\n2 7 1\n", "vl2").mean_bytes(), 2190);
  // The built-in's 50 % atom at one packet.
  const FlowSizeCdf dm = FlowSizeCdf::builtin("datamining");
  EXPECT_DOUBLE_EQ(dm.quantile(0.0), 1460);
  EXPECT_DOUBLE_EQ(dm.quantile(0.49), 1460);
  EXPECT_DOUBLE_EQ(dm.quantile(0.55), 1.5 * 1460);
}

TEST(FlowSizeCdf, StepsAndFlatSegments) {
  // 50 % atom at 100 bytes (repeated size), nothing in 100..200 (repeated cdf), uniform 200..300.
  const FlowSizeCdf cdf = FlowSizeCdf::parse("100 0\n100 50\n200 50\n300 100\n", "steps");
  EXPECT_DOUBLE_EQ(cdf.quantile(0.0), 100);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.25), 100);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.5), 200);
  EXPECT_DOUBLE_EQ(cdf.quantile(0.75), 250);
  EXPECT_DOUBLE_EQ(cdf.quantile(1.0), 300);
  EXPECT_DOUBLE_EQ(cdf.mean_bytes(), 0.5 * 100 + 0.5 * 250);
  Rng rng(7, 0);
  int at_100 = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t s = cdf.sample(rng);
    ASSERT_TRUE(s == 100 || (s >= 200 && s <= 300)) << s;
    at_100 += s == 100;
  }
  EXPECT_NEAR(at_100 / 20000.0, 0.5, 0.02);

  // A first cdf above 0 is an atom at the smallest size.
  const FlowSizeCdf atom = FlowSizeCdf::parse("1000 20\n2000 100\n", "atom");
  EXPECT_DOUBLE_EQ(atom.quantile(0.1), 1000);
  EXPECT_DOUBLE_EQ(atom.quantile(0.6), 1500);
  EXPECT_DOUBLE_EQ(atom.mean_bytes(), 0.2 * 1000 + 0.8 * 1500);

  // Leading zero-probability points: the smallest size is where probability starts.
  const FlowSizeCdf lead = FlowSizeCdf::parse("0 0\n500 0\n1000 100\n", "lead");
  EXPECT_EQ(lead.min_bytes(), 500u);
  // A zero-probability tail beyond the point where the CDF reaches 100 % is never sampled.
  const FlowSizeCdf tail = FlowSizeCdf::parse("0 0\n1000 100\n5000 100\n", "tail");
  EXPECT_EQ(tail.max_bytes(), 1000u);
  EXPECT_DOUBLE_EQ(tail.mean_bytes(), 500);
  // A single size.
  const FlowSizeCdf fixed = FlowSizeCdf::parse("4096 0\n4096 100\n", "fixed");
  Rng r2(1, 1);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(fixed.sample(r2), 4096u);
  EXPECT_DOUBLE_EQ(fixed.mean_bytes(), 4096);
}

TEST(FlowSizeCdf, SamplesAreAtLeastOneByte) {
  const FlowSizeCdf cdf = FlowSizeCdf::parse("0 0\n0 50\n2 100\n", "tiny");
  EXPECT_EQ(cdf.min_bytes(), 1u);
  Rng rng(3, 0);
  for (int i = 0; i < 10000; ++i) ASSERT_GE(cdf.sample(rng), 1u);
}

TEST(FlowSizeCdf, QuantileIsExactInverseOfPoints) {
  for (const std::string& name : FlowSizeCdf::builtin_names()) {
    SCOPED_TRACE(name);
    const FlowSizeCdf cdf = FlowSizeCdf::builtin(name);
    const std::vector<CdfPoint>& p = cdf.points();
    for (std::size_t i = 1; i < p.size(); ++i) {
      if (p[i].cdf == p[i - 1].cdf) continue;
      const double mid = 0.5 * (p[i - 1].cdf + p[i].cdf);
      EXPECT_NEAR(cdf.quantile(mid), 0.5 * (p[i - 1].bytes + p[i].bytes), 1e-6 * p[i].bytes);
      if (p[i].bytes != p[i - 1].bytes) {
        EXPECT_NEAR(forward_cdf(p, cdf.quantile(mid)), mid, 1e-9);
      }
    }
    // Stratified draws converge fast, so the mean of the inverse CDF pins mean_bytes() tightly.
    constexpr int kStrata = 1000000;
    double sum = 0;
    for (int k = 0; k < kStrata; ++k) sum += cdf.quantile((k + 0.5) / kStrata);
    EXPECT_NEAR(sum / kStrata, cdf.mean_bytes(), 1e-3 * cdf.mean_bytes());
  }
}

TEST(FlowSizeCdf, SamplingMatchesMeanAndQuantiles) {
  constexpr int kSamples = 200000;
  std::uint64_t stream = 0;
  for (const std::string& name : FlowSizeCdf::builtin_names()) {
    SCOPED_TRACE(name);
    const FlowSizeCdf cdf = FlowSizeCdf::builtin(name);
    Rng rng(2024, stream++);
    std::vector<std::uint64_t> s(kSamples);
    double sum = 0;
    for (auto& v : s) {
      v = cdf.sample(rng);
      sum += static_cast<double>(v);
    }
    // Heavy tails make the sample mean noisy: 200k draws of googlerpc have a 5 % standard error. The
    // bound is 2 %, or 4.5 standard errors where 2 % would be a coin toss.
    double mean = 0, sd = 0;
    moments(cdf.points(), mean, sd);
    const double tolerance = std::max(0.02, 4.5 * sd / (mean * std::sqrt(kSamples)));
    const double relative = std::abs(sum / kSamples - cdf.mean_bytes()) / cdf.mean_bytes();
    EXPECT_LE(relative, tolerance) << "empirical mean " << sum / kSamples << " vs " << cdf.mean_bytes();
    RecordProperty(name + "_mean_error", std::to_string(relative));

    // Empirical fraction at or below each point: the point's cdf, plus the half byte that rounding to
    // whole bytes adds.
    std::sort(s.begin(), s.end());
    const std::vector<CdfPoint>& p = cdf.points();
    for (std::size_t i = 0; i < p.size(); ++i) {
      const CdfPoint& pt = p[i];
      // Of a run of points at one size (an atom), only the last holds the cdf at that size.
      if (pt.bytes < 1 || (i + 1 < p.size() && p[i + 1].bytes == pt.bytes)) continue;
      const auto k = static_cast<std::uint64_t>(std::floor(pt.bytes));
      const double expected = forward_cdf(p, static_cast<double>(k) + 0.5);
      EXPECT_NEAR(expected, pt.cdf, expected - forward_cdf(p, static_cast<double>(k) - 0.5) + 1e-12);
      const double empirical = static_cast<double>(std::upper_bound(s.begin(), s.end(), k) - s.begin()) / kSamples;
      const double sigma = std::sqrt(expected * (1 - expected) / kSamples);
      EXPECT_NEAR(empirical, expected, 5 * sigma + 5.0 / kSamples) << "at " << k << " bytes";
    }
  }
}

TEST(FlowSizeCdf, SamplingIsDeterministicForASeed) {
  const FlowSizeCdf cdf = FlowSizeCdf::builtin("websearch");
  Rng a(42, 3), b(42, 3), c(43, 3);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = cdf.sample(a);
    ASSERT_EQ(x, cdf.sample(b));
    differs |= x != cdf.sample(c);
  }
  EXPECT_TRUE(differs);
  // A draw is the inverse CDF at one uniform, rounded to whole bytes; so the stream stays aligned
  // whatever the distribution.
  Rng draws(9, 9), uniforms(9, 9);
  for (int i = 0; i < 1000; ++i) {
    const double x = cdf.quantile(uniforms.uniform());
    ASSERT_EQ(cdf.sample(draws), std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(x))));
  }
  Rng d(42, 3), e(42, 3);
  cdf.sample(d);
  FlowSizeCdf::builtin("googlerpc").sample(e);
  EXPECT_EQ(d.next(), e.next());
}

// Pinned draws: a change to the sampling (interpolation, rounding, uniforms per draw) changes every
// workload generated from a seed, so it has to be deliberate.
TEST(FlowSizeCdf, GoldenDrawsForSeed) {
  Rng a(1, 0), b(1, 0);
  const FlowSizeCdf web = FlowSizeCdf::builtin("websearch");
  const FlowSizeCdf dm = FlowSizeCdf::builtin("datamining");
  std::vector<std::uint64_t> web_draws, dm_draws;
  for (int i = 0; i < 6; ++i) {
    web_draws.push_back(web.sample(a));
    dm_draws.push_back(dm.sample(b));
  }
  EXPECT_EQ(web_draws, (std::vector<std::uint64_t>{8184233, 73845, 970833, 8499163, 135248, 8365}));
  EXPECT_EQ(dm_draws, (std::vector<std::uint64_t>{2784974, 1509, 4327, 3021863, 2369, 1460}));
}

}  // namespace
}  // namespace netasic
