// Report (tlm/model/report.h): what several components of one mechanism make of a section, which sections
// appear, per-flow sums in flow-id order, run-wide statistics taken once, table entries in order.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "tlm/model/report.h"

namespace netasic {
namespace {

TEST(Report, ComponentsAddCountsKeepMaximaAndAgreeOnSettings) {
  FlowTable flows;
  Report r(flows);
  for (std::uint64_t c = 1; c <= 3; ++c) {
    ReportSection& s = r.open("mech");
    s.set("mode", "x");
    s.sum("count", c);
    s.sum("nested/count", 2 * c);
    s.max("peak", 10 - c);
    s.min("low", 10 + c);
    s.sum("hist", std::vector<std::uint64_t>{c, 1});
  }
  nlohmann::json j;
  r.write_sections(j);
  const nlohmann::json& m = j["mech"];
  EXPECT_EQ(m["mode"], "x");
  EXPECT_EQ(m["count"].get<std::uint64_t>(), 6u);
  EXPECT_EQ(m["nested"]["count"].get<std::uint64_t>(), 12u);
  EXPECT_EQ(m["peak"].get<std::uint64_t>(), 9u);
  EXPECT_EQ(m["low"].get<std::uint64_t>(), 11u);
  EXPECT_EQ(m["hist"], (std::vector<std::uint64_t>{6, 3}));
}

TEST(Report, ASectionNobodyOpensIsNotWritten) {
  FlowTable flows;
  Report r(flows);
  r.section("shared").sum("frames", 4);  // another component's share, its owner absent
  r.section("owned").sum("frames", 1);
  r.open("owned");
  nlohmann::json j = nlohmann::json::object();
  r.write_sections(j);
  EXPECT_FALSE(j.contains("shared"));
  EXPECT_EQ(j["owned"]["frames"].get<std::uint64_t>(), 1u);
}

TEST(Report, PerFlowValuesAddUpInFlowIdOrderAndFinishRunsOnce) {
  FlowTable flows;
  Report r(flows);
  // Values whose sum depends on the order: 1e16 + 1 + -1e16 is 0 in one order and 1 in another.
  const std::vector<std::pair<std::uint32_t, double>> by_component = {{2, -1e16}, {0, 1e16}, {1, 1.0}};
  int finishes = 0;
  for (const auto& [flow, value] : by_component) {
    ReportSection& s = r.open("cc");
    s.flow_value("v", flow, value);
    s.finish_with([&finishes](ReportSection& t) {
      ++finishes;
      t.set("sum", t.flow_sum("v"));
      t.set("n", t.flow_count("v"));
    });
  }
  nlohmann::json j;
  r.write_sections(j);
  EXPECT_EQ(finishes, 1);
  EXPECT_EQ(j["cc"]["sum"].get<double>(), (1e16 + 1.0) + -1e16);
  EXPECT_EQ(j["cc"]["n"].get<std::size_t>(), 3u);
}

TEST(Report, RunWideStatisticsOnceAndTablesInComponentOrder) {
  FlowTable flows;
  Report r(flows);
  EXPECT_TRUE(r.once("x"));
  EXPECT_FALSE(r.once("x"));
  EXPECT_TRUE(r.tables().empty());
  r.table("t");  // listed even when empty
  for (const char* owner : {"sw0", "sw1", "nic0"}) {
    r.enter(owner);
    r.table("t").push_back({{"owner", r.component()}});
  }
  ASSERT_EQ(r.tables()["t"].size(), 3u);
  EXPECT_EQ(r.tables()["t"][0]["owner"], "sw0");
  EXPECT_EQ(r.tables()["t"][2]["owner"], "nic0");
}

}  // namespace
}  // namespace netasic
