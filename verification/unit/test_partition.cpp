// Partitioning a fabric across ranks (tb/partition.h): hosts stay with their switch, pods and groups stay
// whole, every rank gets work, and the lookahead is the smallest cut link's delay plus one small frame.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tb/partition.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

Topology topo(std::initializer_list<std::string> sets) {
  Scenario s;
  for (const auto& a : sets) s.set_assignment(a);
  return build_topology(s);
}

// No host link is cut, and the cut list is exactly the links whose ends are on different ranks.
void expect_consistent(const Topology& t, const Partition& p) {
  std::set<std::uint32_t> cut(p.cut.begin(), p.cut.end());
  std::uint32_t inside = 0, hosts = 0, switches = 0;
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    const TopoLink& l = t.links[i];
    const bool across = p.rank_of[l.a] != p.rank_of[l.b];
    EXPECT_EQ(across, cut.count(i) == 1) << "link " << i;
    if (across) {
      EXPECT_TRUE(t.is_switch(l.a) && t.is_switch(l.b)) << "a host link is cut: " << l.a << "-" << l.b;
    } else {
      ++inside;
    }
  }
  for (const RankLoad& r : p.load) {
    EXPECT_GT(r.switches, 0u) << "a rank without a switch";
    hosts += r.hosts;
    switches += r.switches;
  }
  EXPECT_EQ(hosts, t.hosts());
  EXPECT_EQ(switches, t.switches());
  std::uint32_t links = 0;
  for (const RankLoad& r : p.load) links += r.links;
  EXPECT_EQ(links, inside);
}

TEST(Partition, FatTreePodsStayWhole) {
  const Topology t = topo({"topology.fat_tree.k=8", "link.rate_gbps=100", "link.prop_delay_ns=500"});
  const Partition p = partition_fabric(t, 4, PartitionRule::automatic, 84);
  EXPECT_EQ(p.rule, PartitionRule::pod);
  expect_consistent(t, p);
  // Two of the eight pods per rank: the same hosts and edge/aggregation switches on each, cores spread 4 each.
  for (const RankLoad& r : p.load) {
    EXPECT_EQ(r.hosts, 32u);
    EXPECT_EQ(r.switches, 16u + 4u);
  }
  std::map<std::int32_t, std::set<std::uint32_t>> ranks_of_pod;
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw)
    if (t.pod_of[sw] >= 0) ranks_of_pod[t.pod_of[sw]].insert(p.rank_of[t.switch_node[sw]]);
  EXPECT_EQ(ranks_of_pod.size(), 8u);
  for (const auto& [pod, ranks] : ranks_of_pod) EXPECT_EQ(ranks.size(), 1u) << "pod " << pod << " is split";
  // Only aggregation-core links are cut: 500 ns plus 84 B at 100 Gb/s (6.72 ns).
  EXPECT_DOUBLE_EQ(p.min_cut_delay_ns, 500.0);
  EXPECT_NEAR(p.lookahead_ns, 506.72, 1e-9);
}

TEST(Partition, DragonflyGroupsStayWhole) {
  const Topology t = topo({"topology.type=dragonfly"});
  const Partition p = partition_fabric(t, 3, PartitionRule::automatic, 84);
  EXPECT_EQ(p.rule, PartitionRule::group);
  expect_consistent(t, p);
  std::map<std::uint32_t, std::set<std::uint32_t>> ranks_of_group;
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw) ranks_of_group[t.group_of[sw]].insert(p.rank_of[t.switch_node[sw]]);
  for (const auto& [g, ranks] : ranks_of_group) EXPECT_EQ(ranks.size(), 1u) << "group " << g << " is split";
  for (std::uint32_t i : p.cut)  // only global links cross groups
    EXPECT_NE(t.group_of[t.switch_index[t.links[i].a]], t.group_of[t.switch_index[t.links[i].b]]);
}

TEST(Partition, ContiguousFillsEveryRankAndBalancesWeight) {
  const Topology t = topo({"topology.type=torus", "topology.torus.x=4", "topology.torus.y=4",
                           "topology.torus.hosts_per_switch=4"});
  for (std::uint32_t ranks : {1u, 2u, 3u, 5u, 16u}) {
    const Partition p = partition_fabric(t, ranks, PartitionRule::automatic, 84);
    EXPECT_EQ(p.rule, PartitionRule::contiguous);
    expect_consistent(t, p);
    // Every switch weighs 5 (itself and 4 hosts): blocks of 16/ranks switches, rounded either way.
    for (const RankLoad& r : p.load) {
      EXPECT_GE(r.switches, 16u / ranks);
      EXPECT_LE(r.switches, (16u + ranks - 1) / ranks + 1);
    }
  }
}

TEST(Partition, OneRankCutsNothing) {
  const Topology t = topo({"topology.fat_tree.k=4"});
  const Partition p = partition_fabric(t, 1, PartitionRule::automatic, 84);
  EXPECT_TRUE(p.cut.empty());
  EXPECT_EQ(p.lookahead_ns, 0.0);
  EXPECT_EQ(p.load.at(0).hosts, 16u);
}

TEST(Partition, BadRequestsAreInputErrors) {
  const Topology fat = topo({"topology.fat_tree.k=4"});
  EXPECT_THROW(partition_fabric(fat, 5, PartitionRule::pod, 84), InputError);  // 4 pods
  EXPECT_THROW(partition_fabric(fat, 2, PartitionRule::group, 84), InputError);  // not a dragonfly
  EXPECT_THROW(partition_fabric(fat, 21, PartitionRule::contiguous, 84), InputError);  // 20 switches
  EXPECT_THROW(partition_fabric(fat, 0, PartitionRule::pod, 84), InputError);
  const Topology torus = topo({"topology.type=torus"});
  EXPECT_THROW(partition_fabric(torus, 2, PartitionRule::pod, 84), InputError);
}

}  // namespace
}  // namespace netasic
