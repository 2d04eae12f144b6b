// Minimal next hops and distances on small hand-built switch graphs.
#include <gtest/gtest.h>

#include "tlm/common/error.h"
#include "tlm/model/routing.h"

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

}  // namespace
}  // namespace netasic
