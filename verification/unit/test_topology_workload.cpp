// Topology generators (node and link counts, asymmetry, degradation) and workload generators.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <unistd.h>

#include "tb/topology.h"
#include "tb/workload.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

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
  // taper * k/2 hosts per edge switch must be whole: 1.25 and 1.5 give 5 and 6 for k = 8, 1.3 gives 5.2.
  EXPECT_EQ(build_topology(with({"topology.fat_tree.taper=1.25"})).hosts(), 32u * 5u);
  EXPECT_EQ(build_topology(with({"topology.fat_tree.taper=1.5"})).hosts(), 32u * 6u);
  const std::string e = error_of([] { build_topology(with({"topology.fat_tree.taper=1.3"})); });
  EXPECT_NE(e.find("topology.fat_tree.taper = 1.3: with k = 8 the hosts per edge switch, taper * k/2 = 5.2, are "
                   "not whole; accepted for k = 8: multiples of 1/4 (e.g. 1.25, 1.5, 1.75)"),
            std::string::npos) << e;
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

// The default dragonfly (groups 0: a*h/2+1) joins every pair of groups by two global links, so minimal
// routing has two global paths between two groups; a*h+1 groups give the canonical one.
TEST(Topology, DefaultDragonflyHasTwoGlobalLinksPerPairOfGroups) {
  const Topology t = build_topology(with({"topology.type=dragonfly"}));  // a=4, p=2, h=2: 5 groups
  EXPECT_EQ(t.switches(), 20u);
  EXPECT_EQ(t.hosts(), 40u);
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> per_pair;
  for (const auto& l : t.links)
    if (t.is_switch(l.a) && t.is_switch(l.b)) {
      const auto ga = t.group_of[static_cast<std::size_t>(t.switch_index[l.a])];
      const auto gb = t.group_of[static_cast<std::size_t>(t.switch_index[l.b])];
      if (ga != gb) ++per_pair[{std::min(ga, gb), std::max(ga, gb)}];
    }
  EXPECT_EQ(per_pair.size(), 10u);
  for (const auto& [pair, links] : per_pair) EXPECT_EQ(links, 2) << pair.first << "-" << pair.second;
  EXPECT_NE(t.description.find("20 global links (2 per pair of groups)"), std::string::npos) << t.description;
}

TEST(Topology, DragonflyIsFullyConnectedBetweenGroups) {
  const Topology t = build_topology(with({"topology.type=dragonfly", "topology.dragonfly.a=4", "topology.dragonfly.p=2",
                                          "topology.dragonfly.h=2", "topology.dragonfly.groups=9"}));
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

// A VL2-format CDF (sizes in 1460-byte packets) up to 10^9 packets: 1.46e12 bytes.
std::string test_cdf_path() {
  const auto path = std::filesystem::temp_directory_path() / ("netasic-unit-" + std::to_string(getpid()) + "-big.cdf");
  std::ofstream(path) << "1 1 0\n1000000000 1 1\n";
  return path.string();
}

// Packet counts and PSNs are 32-bit: a flow of 2^32 - 1 packets or more is refused where its size is given.
TEST(Workload, FlowTooManyPacketsForThe32BitPacketCount) {
  std::string e = error_of([] {
    const Scenario s = with({"topology.fat_tree.k=4", "workload.size_bytes=1000000000000", "nic.mtu_bytes=64"});
    build_workload(s, build_topology(s));
  });
  EXPECT_NE(e.find("workload.size_bytes: a flow of 1000000000000 bytes is 15625000000 packets of nic.mtu_bytes = 64; "
                   "the model counts a flow's packets in 32 bits: at most 4294967294 packets (274877906816 bytes"),
            std::string::npos) << e;
  // The largest size that fits (4294967294 packets of 64 bytes) is accepted.
  {
    const Scenario s = with({"topology.fat_tree.k=4", "workload.type=incast", "workload.incast.senders=1",
                             "workload.size_bytes=274877906816", "nic.mtu_bytes=64"});
    EXPECT_EQ(build_workload(s, build_topology(s)).flows.at(0).size_bytes, 274877906816u);
  }
  e = error_of([] {
    const Scenario s = with({"topology.fat_tree.k=4", "workload.type=incast", "workload.size_bytes=274877906817",
                             "nic.mtu_bytes=64"});
    build_workload(s, build_topology(s));
  });
  EXPECT_NE(e.find("is 4294967295 packets"), std::string::npos) << e;
  // CDF sizes, after scaling (the VL2 format counts 1460-byte packets).
  const std::string cdf = test_cdf_path();
  e = error_of([&] {
    const Scenario s = with({"topology.fat_tree.k=4", "workload.type=random", "workload.cdf=" + cdf, "nic.mtu_bytes=64"});
    build_workload(s, build_topology(s));
  });
  EXPECT_NE(e.find("workload.cdf = " + cdf + ": its largest size: a flow of 1460000000000 bytes"), std::string::npos) << e;
  e = error_of([] {
    const Scenario s = with({"topology.fat_tree.k=4", "workload.type=random", "workload.incast_mix.load=0.1",
                             "workload.incast_mix.degree=2", "workload.incast_mix.max_bytes=1000000000000",
                             "nic.mtu_bytes=64"});
    build_workload(s, build_topology(s));
  });
  EXPECT_NE(e.find("workload.incast_mix.max_bytes: a flow of 1000000000000 bytes"), std::string::npos) << e;
}

}  // namespace
}  // namespace netasic
