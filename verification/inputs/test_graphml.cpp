// GraphML topologies: what a networkx- or Gephi-made file holds, and every error naming its line.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>
#include <string>

#include "tb/inputs/graphml.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

// Two switches joined by two parallel links, a host on each; a key default gives the host links' delay.
const std::string kGraph = R"(<?xml version="1.0" encoding="UTF-8"?>
<!-- written by hand, in the shape networkx writes -->
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="d0" for="node" attr.name="type" attr.type="string"/>
  <key id="d1" for="edge" attr.name="rate_gbps" attr.type="double"/>
  <key id="d2" for="edge" attr.name="delay_ns" attr.type="double"><default>250</default></key>
  <key id="d3" for="edge" attr.name="error_rate" attr.type="double"/>
  <graph id="G" edgedefault="undirected">
    <node id="tor-a"><data key="d0">switch</data></node>
    <node id="tor-b"><data key="d0"> switch </data></node>
    <node id="host &amp; 0"><data key="d0">host</data></node>
    <node id="h1"><data key="d0">host</data></node>
    <edge source="tor-a" target="tor-b"><data key="d1">400</data><data key="d2">1000</data></edge>
    <edge source="tor-b" target="tor-a"><data key="d1">400</data><data key="d2">1e3</data><data key="d3">0.01</data></edge>
    <edge source="host &amp; 0" target="tor-a"><data key="d1">100</data></edge>
    <edge target="h1" source="tor-b"><data key="d1">100</data></edge>
  </graph>
</graphml>
)";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

// Replaces the first occurrence of `from` in the graph.
std::string with(const std::string& from, const std::string& to) {
  std::string s = kGraph;
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(GraphML, ReadsNodesInFileOrderParallelEdgesAndKeyDefaults) {
  const TopologyFile t = parse_graphml_text(kGraph, "fabric.graphml");
  EXPECT_EQ(t.node_count, 4u);
  EXPECT_EQ(t.switch_ids, (std::vector<std::uint32_t>{0, 1}));
  ASSERT_EQ(t.links.size(), 4u);
  EXPECT_EQ(t.links[0].a, 0u);
  EXPECT_EQ(t.links[0].b, 1u);
  EXPECT_EQ(t.links[1].a, 1u);  // a parallel link, written the other way round
  EXPECT_EQ(t.links[1].b, 0u);
  EXPECT_DOUBLE_EQ(t.links[1].delay_ns, 1000.0);
  EXPECT_DOUBLE_EQ(t.links[1].error_rate, 0.01);
  EXPECT_EQ(t.links[2].a, 2u);  // "host & 0": entities decoded
  EXPECT_DOUBLE_EQ(t.links[2].rate_gbps, 100.0);
  EXPECT_DOUBLE_EQ(t.links[2].delay_ns, 250.0);  // the key's default
  EXPECT_DOUBLE_EQ(t.links[2].error_rate, 0.0);
  EXPECT_EQ(t.links[3].line, 16);
}

TEST(GraphML, PathsEndingInGraphmlAreGraphml) {
  EXPECT_TRUE(is_graphml_path("a/fabric.graphml"));
  EXPECT_TRUE(is_graphml_path("FABRIC.GraphML"));
  EXPECT_FALSE(is_graphml_path("topology.txt"));
  EXPECT_FALSE(is_graphml_path("graphml"));
}

struct Case {
  const char* label;
  std::string text;
  const char* expected;  // the whole message after "fabric.graphml:"
};

class GraphMLError : public ::testing::TestWithParam<Case> {};

TEST_P(GraphMLError, NamesLineAndProblem) {
  const Case& c = GetParam();
  EXPECT_EQ(error_of([&] { parse_graphml_text(c.text, "fabric.graphml"); }), std::string("fabric.graphml:") + c.expected);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) { return info.param.label; }

const Case kCases[] = {
    {"Empty", "", "1: no XML element found; a GraphML file starts with <graphml>"},
    {"NotGraphml", "<graph/>", "1: the root element is <graph>; a GraphML file's is <graphml>"},
    {"NoGraph", "<graphml>\n</graphml>", "1: <graphml> holds no <graph>"},
    {"Unclosed", "<graphml>\n<graph>\n", "2: element <graph> is never closed (no </graph>)"},
    {"Mismatched", "<graphml>\n<graph>\n</graphml>", "3: </graphml> closes <graph> opened on line 2"},
    {"UnquotedAttribute", "<graphml>\n<graph id=G/>", "2: the value of attribute id must be quoted"},
    {"UnknownEntity", with("host &amp; 0", "host &nbsp; 0"), "11: unknown entity &nbsp;"},
    {"TwoRoots", "<graphml><graph/></graphml>\n<graphml/>",
     "2: a second top-level element; an XML document has one root element"},
    {"NodeWithoutType", with("<data key=\"d0\">host</data></node>\n    <node id=\"h1\">", "</node>\n    <node id=\"h1\">"),
     "11: node 'host & 0' has no 'type' attribute (host or switch), and its key gives no <default>"},
    {"BadType", with(">host<", ">server<"), "11: node 'host & 0' has type 'server'; accepted: host, switch"},
    {"DuplicateNode", with("id=\"h1\"", "id=\"tor-a\""), "12: node id 'tor-a' is used twice"},
    {"UnknownDataKey", with("key=\"d3\"", "key=\"d9\""), "14: <data key=\"d9\"> names no <key> declared in the file"},
    {"EdgeToUnknownNode", with("target=\"h1\"", "target=\"h2\""), "16: edge target 'h2' is not a node of the graph"},
    {"EdgeWithoutSource", with("<edge source=\"tor-a\" ", "<edge "), "13: <edge> without a source attribute"},
    {"SelfLoop", with("target=\"tor-b\">", "target=\"tor-a\">"), "13: edge connects node 'tor-a' to itself"},
    {"NoRate", with("<data key=\"d1\">100</data></edge>\n  </graph>", "</edge>\n  </graph>"),
     "16: edge has no 'rate_gbps' attribute (Gb/s), and its key gives no <default>"},
    {"RateNotNumber", with(">400<", ">fast<"), "13: rate_gbps must be a number, got 'fast'"},
    {"RateTooLow", with(">400<", ">0.0001<"),
     "13: rate_gbps '0.0001' is outside the supported 0.001 .. 100000 Gb/s, the range of link.rate_gbps"},
    {"DelayNegative", with(">1000<", ">-1<"), "13: delay_ns '-1' is outside 0 .. 1e12 ns"},
    {"ErrorRateOne", with(">0.01<", ">1<"), "14: error_rate 1 loses every packet; accepted [0, 1)"},
    {"HostToHost", with("target=\"h1\" source=\"tor-b\"", "target=\"h1\" source=\"host &amp; 0\""),
     "16: edge joins two hosts, 'host & 0' and 'h1'; a host links to a switch"},
    {"HostsEdgeMovedAway", with("target=\"h1\" source=\"tor-b\"", "target=\"host &amp; 0\" source=\"tor-b\""),
     "8: host 'h1' has no edge; every host needs at least one link, to a switch"},
    {"HostUnlinked", with("<edge target=\"h1\" source=\"tor-b\"><data key=\"d1\">100</data></edge>", ""),
     "8: host 'h1' has no edge; every host needs at least one link, to a switch"},
    {"Hyperedge", with("</graph>", "<hyperedge/></graph>"), "17: <hyperedge> is not supported; a link joins two nodes"},
    {"NestedGraph", with("<node id=\"h1\">", "<node id=\"h1\"><graph/>"),
     "12: nested graphs are not supported (node 'h1')"},
    {"DeepNesting", "<graphml>" + std::string(100, '<') , "1: expected an element name at '<<<<<<<<<<<<<<<<<<<<'"},
};
INSTANTIATE_TEST_SUITE_P(Cases, GraphMLError, ::testing::ValuesIn(kCases), case_name);

TEST(GraphML, DeeplyNestedElementsAreRefusedNotRecursedInto) {
  std::string deep = "<graphml>";
  for (int i = 0; i < 1000; ++i) deep += "<a>";
  EXPECT_EQ(error_of([&] { parse_graphml_text(deep, "deep.graphml"); }),
            "deep.graphml:1: elements nested more than 64 deep");
}

}  // namespace
}  // namespace netasic
