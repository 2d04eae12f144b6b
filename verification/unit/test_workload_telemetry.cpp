// The telemetry evaluation's shapes and connection patterns (tb/workload_telemetry.cpp): the D1, D2, D3
// dragonflies and the Table I fat tree have the paper's sizes, and every unf / adv1 / adv2 connection
// respects its definition (Mizrahi et al., Section IV-A, Tables I and II).
#include <gtest/gtest.h>

#include <set>

#include "tb/topology.h"
#include "tb/workload.h"
#include "tb/workload_telemetry.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

Scenario with(std::initializer_list<std::string> sets) {
  Scenario s;
  for (const auto& a : sets) s.set_assignment(a);
  return s;
}

Scenario dragonfly(int h, const std::string& pattern, int pairs, int seed = 1) {
  return with({"topology.type=dragonfly", "topology.dragonfly.h=" + std::to_string(h),
               "topology.dragonfly.a=" + std::to_string(2 * h), "topology.dragonfly.p=" + std::to_string(h),
               "topology.dragonfly.groups=" + std::to_string(2 * h * h + 1),
               "workload.pattern=" + pattern, "workload.pairs=" + std::to_string(pairs),
               "sim.seed=" + std::to_string(seed)});
}

TEST(TelemetryShapes, DragonflySizesOfTableII) {
  // hosts = groups x a x p, groups = a*h + 1 (Table II: 9/72, 19/342, 33/1056).
  const int hosts[] = {72, 342, 1056};
  const int groups[] = {9, 19, 33};
  for (int h = 2; h <= 4; ++h) {
    const Topology t = build_topology(dragonfly(h, "unf", 1));
    EXPECT_EQ(t.hosts(), static_cast<std::uint32_t>(hosts[h - 2]));
    const auto g = host_groups(t);
    EXPECT_EQ(std::set<std::uint32_t>(g.begin(), g.end()).size(), static_cast<std::size_t>(groups[h - 2]));
  }
}

TEST(TelemetryShapes, FatTreeOfTableI) {
  const Topology t = build_topology(with({"topology.fat_tree.k=8", "topology.fat_tree.taper=4"}));
  EXPECT_EQ(t.hosts(), 512u);
}

TEST(TelemetryPatterns, EachConnectionFollowsItsDefinition) {
  for (int seed = 1; seed <= 3; ++seed) {
    const Scenario unf = dragonfly(2, "unf", 500, seed), adv1 = dragonfly(2, "adv1", 500, seed),
                   adv2 = dragonfly(2, "adv2", 500, seed);
    const Topology t = build_topology(unf);
    const auto g = host_groups(t);
    const Workload wu = build_workload(unf, t);
    ASSERT_EQ(wu.flows.size(), 500u);
    for (const FlowSpec& f : wu.flows) {
      EXPECT_NE(g[f.src], g[f.dst]);
      EXPECT_EQ(f.start, 0u);
    }
    const Workload w1 = build_workload(adv1, t);
    std::set<std::uint32_t> src_groups, dst_groups;
    for (const FlowSpec& f : w1.flows) {
      src_groups.insert(g[f.src]);
      dst_groups.insert(g[f.dst]);
    }
    EXPECT_EQ(src_groups.size(), 1u);
    EXPECT_EQ(dst_groups.size(), 1u);
    EXPECT_NE(*src_groups.begin(), *dst_groups.begin());
    const Workload w2 = build_workload(adv2, t);
    std::set<std::uint32_t> into, from;
    for (const FlowSpec& f : w2.flows) {
      into.insert(g[f.dst]);
      from.insert(g[f.src]);
    }
    EXPECT_EQ(into.size(), 1u);
    EXPECT_EQ(from.count(*into.begin()), 0u);
    EXPECT_EQ(from.size(), 8u);  // 500 draws over the 8 other groups: every one of them (1 - (7/8)^500 ~ 1)
  }
}

TEST(TelemetryPatterns, AdversarialPatternsNeedGroups) {
  const Scenario s = with({"workload.pattern=adv1"});
  const Topology t = build_topology(s);
  EXPECT_THROW(build_workload(s, t), InputError);
  const Scenario u = with({"workload.pattern=unf", "workload.pairs=10"});
  const Workload w = build_workload(u, build_topology(u));
  for (const FlowSpec& f : w.flows) EXPECT_NE(f.src, f.dst);
}

}  // namespace
}  // namespace netasic
