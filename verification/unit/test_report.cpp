// Report (tlm/model/report.h): what several components of one mechanism make of a section, which sections
// appear, per-flow sums in flow-id order, run-wide statistics taken once, table entries in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "tlm/common/log_histogram.h"
#include "tlm/common/rng.h"
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

// Every value lies in its bucket, buckets tile the integers without gaps, and a bucket is at most 1/32 of
// its lower bound wide above the exact range.
TEST(LogHistogram, BucketsTileTheIntegersWithBoundedWidth) {
  for (std::uint64_t v = 0; v < 200000; ++v) {
    const std::uint32_t b = LogHistogram::bucket(v);
    ASSERT_LE(v, LogHistogram::upper(b)) << v;
    if (b > 0) {
      ASSERT_LT(LogHistogram::upper(b - 1), v) << v;
    }
  }
  for (std::uint64_t v : {64ull, 1000ull, 123456789ull, 1ull << 40, ~0ull >> 1}) {
    const std::uint32_t b = LogHistogram::bucket(v);
    const std::uint64_t lo = LogHistogram::upper(b - 1) + 1, hi = LogHistogram::upper(b);
    EXPECT_LE(v, hi);
    EXPECT_GE(v, lo);
    EXPECT_LE(static_cast<double>(hi - lo + 1), static_cast<double>(lo) / 32.0 + 1) << v;
  }
}

// Quantiles against the sorted sample: exact below 64, otherwise the sample's quantile rounded up to its
// bucket's upper bound (never below it, at most 1/32 above it).
TEST(LogHistogram, QuantilesMatchTheSortedSample) {
  Rng rng(3, 1);
  std::vector<std::uint64_t> v;
  LogHistogram h;
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t x = rng.below(40) == 0 ? 1000 + rng.below(1000000) : rng.below(60);
    v.push_back(x);
    h.add(x);
  }
  std::sort(v.begin(), v.end());
  for (double q : {0.5, 0.9, 0.99, 0.999, 0.9999}) {
    const std::uint64_t want = v[static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1];
    const std::uint64_t got = h.quantile(q);
    EXPECT_GE(got, want) << q;
    EXPECT_LE(static_cast<double>(got), static_cast<double>(want) * (1 + 1.0 / 32)) << q;
    if (want < 64) {
      EXPECT_EQ(got, want) << q;
    }
  }
  EXPECT_EQ(h.quantile(1.0), v.back());
  EXPECT_EQ(h.total(), v.size());
}

// Time at each level, inside the window only: 0 for [0,10), 5 for [10,40), 2 for [40,100) = the run's end.
TEST(TimeWeighted, CreditsTimeAtEachLevelInsideTheWindow) {
  TimeWindow all;
  TimeWeighted t;
  t.at(10, 5, all);
  t.at(40, 2, all);
  LogHistogram h = t.until(100, all);
  EXPECT_EQ(h.total(), 100u);
  EXPECT_DOUBLE_EQ(h.mean(), (5.0 * 30 + 2.0 * 60) / 100);
  EXPECT_EQ(h.quantile(0.1), 0u);
  EXPECT_EQ(h.quantile(0.5), 2u);
  EXPECT_EQ(h.quantile(0.75), 5u);

  TimeWindow w{20, 50};  // 5 for [20,40), 2 for [40,50)
  TimeWeighted u;
  u.at(10, 5, w);
  u.at(40, 2, w);
  h = u.until(100, w);
  EXPECT_EQ(h.total(), 30u);
  EXPECT_DOUBLE_EQ(h.mean(), (5.0 * 20 + 2.0 * 10) / 30);
  EXPECT_EQ(h.quantile(0.5), 5u);
  EXPECT_EQ(h.quantile(0.33), 2u);  // 2 holds 10 of the 30
}

}  // namespace
}  // namespace netasic
