// Minimal next hops and distances on small hand-built and random switch graphs.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tlm/common/error.h"
#include "tlm/model/routing.h"
#include "tlm/model/routing_policy.h"

namespace netasic {
namespace {

constexpr auto H = RoutingTable::kHost;

TEST(Routing, SquareHasTwoEqualCostPaths) {
  // Switches 0-1-3 and 0-2-3; one host on 0 (port 0) and one on 3 (port 2).
  RoutingTable r({{H, 1, 2}, {0, 3}, {0, 3}, {1, 2, H}}, {0, 3}, {0, 2}, {});
  EXPECT_EQ(r.distance(0, 3), 2);
  std::uint32_t n = 0;
  const std::uint16_t* p = r.next_hops(0, 3, n);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(p[0], 1);
  EXPECT_EQ(p[1], 2);
  p = r.next_hops(1, 3, n);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(p[0], 1);
  r.check_connected();
}

// The packet path's view (a switch's row by host column, the host's switch and port) gives the same lists as
// next_hops; the columns of switches with hosts come first, in the order of their first host.
TEST(Routing, HostColumnsComeFirstAndGiveTheSameRoutes) {
  // A line 0-1-2-3 with hosts on 3 (port 1) and on 1 (port 2): columns 3, 1, then 0, 2.
  RoutingTable r({{1}, {0, 2, H}, {1, 3}, {2, H}}, {3, 1, 3}, {1, 2, 1}, {});
  const RoutingTable::HostAt* at = r.host_at();
  EXPECT_EQ(at[0].sw, 3u);
  EXPECT_EQ(at[0].col, 0u);
  EXPECT_EQ(at[0].port, 1);
  EXPECT_EQ(at[1].sw, 1u);
  EXPECT_EQ(at[1].col, 1u);
  EXPECT_EQ(at[1].port, 2);
  EXPECT_EQ(at[2].col, 0u);
  for (std::uint32_t s = 0; s < 4; ++s) {
    for (std::uint32_t h = 0; h < 3; ++h) {
      if (at[h].sw == s) continue;
      std::uint32_t n = 0, m = 0;
      const std::uint16_t* a = r.next_hops(s, at[h].sw, n);
      const std::uint16_t* b = RoutingTable::next_hop_list(r.next_hop_ports(), r.next_hop_row(s)[at[h].col], m);
      ASSERT_EQ(n, m);
      ASSERT_EQ(n, 1u);
      EXPECT_EQ(a[0], b[0]);
    }
  }
  std::uint32_t n = 0;
  EXPECT_EQ(r.next_hops(0, 3, n)[0], 0);  // through the row's column for switch 3
  EXPECT_EQ(r.next_hops(3, 0, n)[0], 0);  // a switch without hosts: a column after the hosts' switches
  EXPECT_EQ(r.next_hops(1, 3, n)[0], 1);
}

// A list of more equal-cost next hops than an entry can count is refused, not cut short.
TEST(Routing, TooManyEqualCostNextHopsAreRefused) {
  // Switch 0 reaches switch 1 through 128 parallel ports (radix 129: the host on the last).
  std::vector<std::uint32_t> zero(RoutingTable::kMaxNextHops + 1, 1), one(RoutingTable::kMaxNextHops + 1, 0);
  zero.push_back(H);
  one.push_back(H);
  EXPECT_THROW(RoutingTable({zero, one}, {0, 1}, {128, 128}, {}), InputError);
  zero.erase(zero.begin());
  one.erase(one.begin());
  EXPECT_NO_THROW(RoutingTable({zero, one}, {0, 1}, {127, 127}, {}));
}

// Distances and next hops as the definitions give them, worked out here the slow way: a BFS from every
// switch t along the ports' links (distance(v, t) is the hops from t to v), and the ports of s whose peer
// is one hop closer, in port order.
void expect_shortest_paths(const std::vector<std::vector<std::uint32_t>>& peers) {
  const auto n = static_cast<std::uint32_t>(peers.size());
  RoutingTable r(peers, {0}, {0}, {});
  std::vector<std::vector<int>> hops(n, std::vector<int>(n, -1));  // hops[t][v]
  for (std::uint32_t t = 0; t < n; ++t) {
    std::vector<std::uint32_t> queue{t};
    hops[t][t] = 0;
    for (std::size_t q = 0; q < queue.size(); ++q)
      for (std::uint32_t v : peers[queue[q]])
        if (v < n && hops[t][v] < 0) {
          hops[t][v] = hops[t][queue[q]] + 1;
          queue.push_back(v);
        }
  }
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) {
      const int d = hops[t][s];
      ASSERT_EQ(r.distance(s, t), d < 0 ? RoutingTable::kUnreachable : d) << "from " << s << " to " << t;
      if (s == t || d < 0) continue;
      std::vector<std::uint16_t> want;
      for (std::size_t p = 0; p < peers[s].size(); ++p)
        if (peers[s][p] < n && hops[t][peers[s][p]] == d - 1) want.push_back(static_cast<std::uint16_t>(p));
      std::uint32_t count = 0;
      const std::uint16_t* got = r.next_hops(s, t, count);
      ASSERT_EQ(std::vector<std::uint16_t>(got, got + count), want) << "from " << s << " to " << t;
    }
}

// Random graphs of a few hundred switches, with host and unconnected ports, one-way links and two parts
// that cannot reach each other: distances come from bit sets of all sources at once, next hops from
// port masks, both checked against the definitions.
TEST(Routing, DistancesAndNextHopsMatchTheDefinitionsOnRandomGraphs) {
  std::mt19937 rng(7);
  for (std::uint32_t n : {5u, 70u, 130u, 300u}) {
    std::vector<std::vector<std::uint32_t>> peers(n);
    for (std::uint32_t s = 0; s < n; ++s) {
      const std::uint32_t ports = 1 + rng() % 9;
      for (std::uint32_t p = 0; p < ports; ++p) {
        const std::uint32_t roll = rng() % 10;
        // The first 3/4 of the switches and the rest are two parts, linked only one way (3/4 -> rest).
        const std::uint32_t part = s < n * 3 / 4 ? 0 : n * 3 / 4, size = s < n * 3 / 4 ? n * 3 / 4 : n - n * 3 / 4;
        peers[s].push_back(roll == 0 ? H : roll == 1 ? RoutingTable::kUnconnected : part + rng() % size);
      }
    }
    for (std::uint32_t s = 0; s < n * 3 / 4; ++s)
      if (rng() % 20 == 0) peers[s].push_back(n * 3 / 4 + rng() % (n - n * 3 / 4));
    SCOPED_TRACE(n);
    expect_shortest_paths(peers);
  }
}

// A line of 150 switches is 149 hops across: more levels than the bit sets run, so the BFS per switch
// gives the distances.
TEST(Routing, LongLineFallsBackToOneSearchPerSwitch) {
  std::vector<std::vector<std::uint32_t>> peers(150);
  for (std::uint32_t i = 0; i < 150; ++i) {
    if (i > 0) peers[i].push_back(i - 1);
    if (i + 1 < 150) peers[i].push_back(i + 1);
  }
  expect_shortest_paths(peers);
  EXPECT_EQ(RoutingTable(peers, {0}, {0}, {}).distance(0, 149), 149);
}

// Switches of more than 64 ports: next-hop masks of two words and more, lists taking ports from both.
TEST(Routing, WidePortsGiveListsAcrossMaskWords) {
  // Switch 0 has 100 ports: even ones to switch 1, odd ones to switch 2; 1 and 2 each reach 3.
  std::vector<std::vector<std::uint32_t>> peers(4);
  for (std::uint32_t p = 0; p < 100; ++p) peers[0].push_back(1 + p % 2);
  peers[1] = {0, 3};
  peers[2] = {0, 3};
  peers[3] = {1, 2};
  expect_shortest_paths(peers);
  RoutingTable r(peers, {0}, {0}, {});
  std::uint32_t count = 0;
  const std::uint16_t* p = r.next_hops(0, 3, count);
  ASSERT_EQ(count, 100u);
  EXPECT_EQ(p[99], 99);
  r.next_hops(0, 1, count);
  EXPECT_EQ(count, 50u);
}

TEST(Routing, DisconnectedGraphIsReported) {
  RoutingTable r({{H, 1}, {0}, {H}}, {0, 2}, {0, 0}, {});
  EXPECT_THROW(r.check_connected(), InputError);
}

TEST(Routing, GroupsGiveNextHopsTowardAGroup) {
  // Two groups of two switches: 0,1 in group 0; 2,3 in group 1; global link 1-2.
  RoutingTable r({{H, 1}, {0, 2}, {1, 3}, {2, H}}, {0, 3}, {0, 1}, {0, 0, 1, 1});
  EXPECT_TRUE(r.is_global_port(1, 1));
  EXPECT_FALSE(r.is_global_port(0, 1));
  EXPECT_EQ(r.distance_to_group(0, 1), 2);
  std::uint32_t n = 0;
  const std::uint16_t* p = r.next_hops_to_group(0, 1, n);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(p[0], 1);
}

TEST(Routing, PolicyNames) {
  for (const auto& name : routing_policy_names()) EXPECT_EQ(routing_policy_name(parse_routing_policy(name)), name);
  EXPECT_THROW(parse_routing_policy("shortest"), InputError);
}

// The policies through the registry, on the square (two equal-cost ports 1 and 2 from switch 0 to 3).
struct SquarePolicies : ::testing::Test {
  SquarePolicies() : table({{H, 1, 2}, {0, 3}, {0, 3}, {1, 2, H}}, {0, 3}, {0, 2}, {}), rng(1, 2) {
    ctx.routing = &table;
    ctx.rng = &rng;
    ctx.backlog_base = reinterpret_cast<const char*>(&backlog[0]);
    ctx.backlog_stride = sizeof(std::uint64_t);
    ctx.switch_id = 0;
    ctx.hash_salt = 0x1234;
  }
  Packet packet(std::uint32_t hash) {
    Packet p;
    p.type = PacketType::data;
    p.flow_hash = hash;
    p.dst_host = 1;
    p.in_port = 0;
    return p;
  }
  RoutingTable table;
  Rng rng;
  std::uint64_t backlog[3] = {0, 5000, 100};
  RoutingContext ctx;
  const std::uint16_t ports[2] = {1, 2};
};

TEST_F(SquarePolicies, EveryNameBuildsItsPolicy) {
  for (const auto& name : routing_policy_names()) {
    const RoutingPolicy p = parse_routing_policy(name);
    auto f = make_routing_function(p, ctx, RoutingPolicySettings{});
    ASSERT_NE(f, nullptr) << name;
    // Only ECMP and dragonfly-minimal choose by the flow hash alone (what the prefetch hook relies on).
    EXPECT_EQ(f->hash_only(), p == RoutingPolicy::ecmp || p == RoutingPolicy::minimal) << name;
  }
}

TEST_F(SquarePolicies, EcmpAndFlowcutWithoutStateFollowTheHash) {
  auto ecmp = make_routing_function(RoutingPolicy::ecmp, ctx, {});
  auto flowcut = make_routing_function(RoutingPolicy::flowcut, ctx, {});  // NIC-only: no table in the switch
  for (std::uint32_t h = 0; h < 64; ++h) {
    Packet p = packet(h * 0x9e3779b9u);
    const std::uint16_t o = ctx.hash_pick(ports, 2, &p);
    EXPECT_EQ(ecmp->choose(&p, ports, 2), o);
    EXPECT_EQ(flowcut->choose(&p, ports, 2), o);
  }
}

TEST_F(SquarePolicies, AdaptiveTakesTheLeastLoadedAndSprayTakesBoth) {
  auto adaptive = make_routing_function(RoutingPolicy::adaptive, ctx, {});
  auto spray = make_routing_function(RoutingPolicy::spray, ctx, {});
  Packet p = packet(7);
  EXPECT_EQ(adaptive->choose(&p, ports, 2), 2);  // backlog 100 < 5000
  backlog[2] = 9000;
  EXPECT_EQ(adaptive->choose(&p, ports, 2), 1);
  int on[3] = {0, 0, 0};
  for (int i = 0; i < 200; ++i) ++on[spray->choose(&p, ports, 2)];
  EXPECT_GT(on[1], 50);
  EXPECT_GT(on[2], 50);
}

}  // namespace
}  // namespace netasic

namespace netasic {
namespace {

// Every walk that follows up*/down* candidates (any choice at each hop) is legal (no up link after a
// down link) and reaches its destination in the minimal legal number of hops.
void check_up_down_walks(RoutingTable& r) {
  r.enable_up_down();
  const std::uint32_t n = r.switches();
  for (std::uint32_t s = 0; s < n; ++s)
    for (std::uint32_t t = 0; t < n; ++t) {
      if (s == t) continue;
      ASSERT_NE(r.distance_updown(s, t), RoutingTable::kUnreachable) << s << "->" << t;
      // Explore every candidate path (the graphs here are small).
      struct State { std::uint32_t at; bool down; unsigned hops; };
      std::vector<State> stack{{s, false, 0}};
      while (!stack.empty()) {
        const State st = stack.back();
        stack.pop_back();
        if (st.at == t) {
          EXPECT_EQ(st.hops, r.distance_updown(s, t)) << s << "->" << t;
          continue;
        }
        std::uint32_t c = 0;
        const std::uint16_t* ports = r.next_hops_updown(st.at, t, st.down, c);
        ASSERT_GT(c, 0u) << "stuck at " << st.at << " toward " << t;
        for (std::uint32_t k = 0; k < c; ++k) {
          const bool up = r.is_up(st.at, ports[k]);
          EXPECT_FALSE(st.down && up) << "up link after a down link at " << st.at;
          stack.push_back({r.peer(st.at, ports[k]), st.down || !up, st.hops + 1});
        }
      }
    }
}

TEST(UpDown, RingOfSixIsRoutedWithoutCycles) {
  // A ring: shortest paths would close a cycle of channel dependencies; up*/down* must not.
  std::vector<std::vector<std::uint32_t>> peers(6);
  for (std::uint32_t i = 0; i < 6; ++i) peers[i] = {(i + 1) % 6, (i + 5) % 6};
  RoutingTable r(peers, {0}, {0}, {});
  check_up_down_walks(r);
  // The link between 3 and 4 (levels 3 and 2 from root 0... both sides of the ring meet there) is used
  // downward only: a path from 2 to 4 goes up through the root side when the short way is illegal.
  EXPECT_GE(r.distance_updown(2, 4), r.distance(2, 4));
}

TEST(UpDown, TorusLikeMeshIsRoutedMinimallyAndLegally) {
  // 3x3 torus of switches.
  std::vector<std::vector<std::uint32_t>> peers(9);
  for (std::uint32_t j = 0; j < 3; ++j)
    for (std::uint32_t i = 0; i < 3; ++i) {
      const std::uint32_t v = j * 3 + i;
      peers[v] = {j * 3 + (i + 1) % 3, j * 3 + (i + 2) % 3, ((j + 1) % 3) * 3 + i, ((j + 2) % 3) * 3 + i};
    }
  RoutingTable r(peers, {0}, {0}, {});
  check_up_down_walks(r);
}

}  // namespace
}  // namespace netasic
