// Topology generators (node and link counts, asymmetry, degradation) and workload generators.
#include <gtest/gtest.h>

#include <set>

#include "tb/topology.h"
#include "tb/workload.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

Scenario with(std::initializer_list<std::string> sets) {
  Scenario s;
  for (const auto& a : sets) s.set_assignment(a);
  return s;
}

TEST(Topology, FatTreeCounts) {
  const Topology t = build_topology(with({"topology.fat_tree.k=4"}));
  EXPECT_EQ(t.hosts(), 16u);
  EXPECT_EQ(t.switches(), 20u);
  EXPECT_EQ(t.links.size(), 16u + 16u + 16u);
  const Topology tapered = build_topology(with({"topology.fat_tree.k=4", "topology.fat_tree.taper=2"}));
  EXPECT_EQ(tapered.hosts(), 32u);
  EXPECT_THROW(build_topology(with({"topology.fat_tree.k=5"})), InputError);
}

TEST(Topology, LeafSpineAsymmetry) {
  const Topology t = build_topology(with({"topology.type=leaf_spine", "topology.leaf_spine.leaves=4",
                                          "topology.leaf_spine.spines=2", "topology.leaf_spine.hosts_per_leaf=3",
                                          "topology.leaf_spine.remove_links=0-1", "topology.leaf_spine.slow_links=2-0:0.25"}));
  EXPECT_EQ(t.hosts(), 12u);
  EXPECT_EQ(t.links.size(), 12u + 8u - 1u);
  int slowed = 0;
  for (const auto& l : t.links)
    if (l.scale == 0.25) ++slowed;
  EXPECT_EQ(slowed, 1);
  EXPECT_THROW(build_topology(with({"topology.type=leaf_spine", "topology.leaf_spine.remove_links=9-0"})), InputError);
  EXPECT_THROW(build_topology(with({"topology.type=leaf_spine", "topology.leaf_spine.slow_links=0-0:2"})), InputError);
}

TEST(Topology, DragonflyIsFullyConnectedBetweenGroups) {
  const Topology t = build_topology(with({"topology.type=dragonfly", "topology.dragonfly.a=4", "topology.dragonfly.p=2",
                                          "topology.dragonfly.h=2"}));
  EXPECT_EQ(t.switches(), 36u);
  EXPECT_EQ(t.hosts(), 72u);
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (const auto& l : t.links)
    if (t.is_switch(l.a) && t.is_switch(l.b)) {
      const auto ga = t.group_of[t.switch_index[l.a]], gb = t.group_of[t.switch_index[l.b]];
      if (ga != gb) pairs.insert({std::min(ga, gb), std::max(ga, gb)});
    }
  EXPECT_EQ(pairs.size(), 9u * 8u / 2u);
}

TEST(Topology, DegradedFractionFromSeed) {
  auto count = [](const Topology& t) {
    int n = 0;
    for (const auto& l : t.links) n += l.degraded;
    return n;
  };
  const Topology a = build_topology(with({"failures.degraded_fraction=0.25", "sim.seed=3"}));
  const Topology b = build_topology(with({"failures.degraded_fraction=0.25", "sim.seed=3"}));
  const Topology c = build_topology(with({"failures.degraded_fraction=0.25", "sim.seed=4"}));
  EXPECT_EQ(count(a), 64);  // a quarter of the 256 switch-to-switch links of k=8
  for (std::size_t i = 0; i < a.links.size(); ++i) EXPECT_EQ(a.links[i].degraded, b.links[i].degraded);
  bool differs = false;
  for (std::size_t i = 0; i < a.links.size(); ++i) differs = differs || a.links[i].degraded != c.links[i].degraded;
  EXPECT_TRUE(differs);
}

TEST(Workload, PermutationSendsAndReceivesOncePerHost) {
  const Scenario s = with({"topology.fat_tree.k=4"});
  const Workload w = build_workload(s, build_topology(s));
  ASSERT_EQ(w.flows.size(), 16u);
  std::set<std::uint32_t> srcs, dsts;
  for (const auto& f : w.flows) {
    EXPECT_NE(f.src, f.dst);
    srcs.insert(f.src);
    dsts.insert(f.dst);
  }
  EXPECT_EQ(srcs.size(), 16u);
  EXPECT_EQ(dsts.size(), 16u);
}

TEST(Workload, RandomLoadMatchesTarget) {
  const Scenario s = with({"topology.fat_tree.k=4", "workload.type=random", "workload.load=0.5",
                           "workload.duration_us=2000", "workload.cdf=websearch"});
  const Workload w = build_workload(s, build_topology(s));
  double bytes = 0;
  for (const auto& f : w.flows) bytes += static_cast<double>(f.size_bytes);
  // Offered: 16 hosts x 200 Gb/s x 0.5 x 2 ms = 400 MB; Poisson + heavy-tailed sizes: within 25%.
  EXPECT_NEAR(bytes / 400e6, 1.0, 0.25);
}

TEST(Workload, BadIncastAndEmptyFiles) {
  EXPECT_THROW(
      { const Scenario s = with({"topology.fat_tree.k=4", "workload.type=incast", "workload.incast.destination=99"});
        build_workload(s, build_topology(s)); },
      InputError);
  EXPECT_THROW(
      { const Scenario s = with({"topology.fat_tree.k=4", "workload.type=file"});
        build_workload(s, build_topology(s)); },
      InputError);
}

}  // namespace
}  // namespace netasic
