#include <gtest/gtest.h>

#include <map>

#include "tlm/blocks/flowlet_table.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

FlowletTableConfig small(std::uint32_t entries = 4) {
  FlowletTableConfig c;
  c.entries = entries;
  c.key_bits = 32;
  c.port_bits = 3;
  return c;
}

TEST(FlowletTable, RejectsBadParameters) {
  auto c = small(6);
  EXPECT_THROW(FlowletTable{c}, InputError);
  c = small();
  c.port_bits = 0;
  EXPECT_THROW(FlowletTable{c}, InputError);
  try {
    FlowletTable t(small(12));
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("entries"), std::string::npos);
  }
}

TEST(FlowletTable, TimeoutIsBetweenDeltaAndTwoDelta) {
  FlowletTable t(small());
  Rng rng(1, 2);
  const WideKey k = WideKey::from_id(42);
  EXPECT_TRUE(t.access(k, 8, rng).new_flowlet);
  const auto port = t.access(k, 8, rng).port;
  t.check();  // first sweep only ages
  EXPECT_TRUE(t.valid(t.index_of(k)));
  auto r = t.access(k, 8, rng);  // a packet clears the age bit: same flowlet, same port
  EXPECT_FALSE(r.new_flowlet);
  EXPECT_EQ(r.port, port);
  t.check();
  t.check();  // two sweeps without packets: timed out
  EXPECT_FALSE(t.valid(t.index_of(k)));
  EXPECT_TRUE(t.access(k, 8, rng).new_flowlet);
  EXPECT_EQ(t.flowlets(), 2u);
  EXPECT_EQ(t.check_latency(), 4u + 2u);
  EXPECT_EQ(t.storage_bits(), 4u * 5u);
}

TEST(FlowletTable, CollidingFlowsShareTheEntry) {
  FlowletTable t(small());
  Rng rng(3, 4);
  std::vector<std::uint32_t> same;
  for (std::uint32_t f = 0; same.size() < 2; ++f)
    if (t.index_of(WideKey::from_id(f)) == 1) same.push_back(f);
  const auto a = t.access(WideKey::from_id(same[0]), 8, rng);
  const auto b = t.access(WideKey::from_id(same[1]), 8, rng);
  EXPECT_FALSE(b.new_flowlet);
  EXPECT_EQ(a.port, b.port);
  EXPECT_EQ(t.collisions(), 1u);
}

// Against a reference: a map index -> state computed from CRC-32 in the test, ports from a copied Rng.
TEST(FlowletTable, RandomAgainstReference) {
  FlowletTable t(small(8));
  Rng traffic(7, 1), model_rng(7, 2), ref_rng(7, 2);
  struct E {
    unsigned port = 0;
    bool valid = false, age = false;
  };
  std::map<std::uint32_t, E> ref;
  std::map<unsigned, int> port_hist;
  for (int i = 0; i < 20000; ++i) {
    if (traffic.below(50) == 0) {
      t.check();
      for (auto& [idx, e] : ref) {
        if (!e.valid) continue;
        if (e.age) e.valid = false;
        else e.age = true;
      }
      continue;
    }
    const std::uint32_t f = static_cast<std::uint32_t>(traffic.below(64));
    const std::uint32_t idx = crc32_u32(f) & 7u;
    E& e = ref[idx];
    const unsigned n = 1 + (idx % 5);  // per entry: colliding flows share the candidate set too
    const auto r = t.access(WideKey::from_id(f), n, model_rng);
    ASSERT_EQ(r.index, idx);
    ASSERT_EQ(r.new_flowlet, !e.valid);
    if (!e.valid) {
      e.port = static_cast<unsigned>(ref_rng.below(n));
      e.valid = true;
      if (n == 5) ++port_hist[e.port];
    }
    e.age = false;
    ASSERT_EQ(r.port, e.port);
    ASSERT_LT(r.port, n);
  }
  // Uniform choice among 5 candidates: every candidate drawn.
  EXPECT_EQ(port_hist.size(), 5u);
}

}  // namespace
}  // namespace netasic

namespace netasic {
namespace {

// access_at_sweep must give exactly what a check() every delta gives.
TEST(FlowletTableLazy, MatchesPeriodicCheckerSweeps) {
  FlowletTableConfig c;
  c.entries = 16;
  c.key_bits = 32;
  FlowletTable eager(c), lazy(c);
  Rng r1(9, 1), r2(9, 1), keys(9, 2);
  std::uint64_t sweeps = 0;
  for (int step = 0; step < 20000; ++step) {
    if (keys.below(4) == 0) {  // a checker sweep happens
      eager.check();
      ++sweeps;
      continue;
    }
    const WideKey k = WideKey::from_id(static_cast<std::uint32_t>(keys.below(40)));
    const FlowletResult a = eager.access(k, 8, r1);
    const FlowletResult b = lazy.access_at_sweep(k, 8, r2, sweeps);
    ASSERT_EQ(a.port, b.port) << "step " << step;
    ASSERT_EQ(a.new_flowlet, b.new_flowlet) << "step " << step;
    // Occupancy counts what the periodic checker leaves valid, expired entries not touched since included.
    ASSERT_EQ(eager.occupancy(), lazy.occupancy()) << "step " << step;
  }
  EXPECT_EQ(eager.flowlets(), lazy.flowlets());
  EXPECT_EQ(eager.high_water(), lazy.high_water());
  EXPECT_GT(eager.flowlets(), 100u);
}

}  // namespace
}  // namespace netasic
