#include <gtest/gtest.h>

#include <map>

#include "tlm/blocks/fgfc.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic {
namespace {

TEST(FgfcGenerator, RejectsBadParameters) {
  FgfcGeneratorConfig c;
  c.slots = 0;
  EXPECT_THROW(FgfcGenerator{c}, InputError);
  c = FgfcGeneratorConfig{};
  c.gap = 0;
  EXPECT_THROW(FgfcGenerator{c}, InputError);
}

// The RTL's frame port sends one frame per cycle: with two due, the lowest slot goes first and the other
// in the next cycle (next_due says so, so the engine polls again then).
TEST(FgfcGenerator, OneFramePerCycle) {
  FgfcGeneratorConfig c;
  c.slots = 4;
  c.gap = 10;
  FgfcGenerator g(c);
  EXPECT_EQ(g.xoff(0, 7, 100), FgfcRequestStatus::accepted);
  EXPECT_EQ(g.xoff(0, 8, 100), FgfcRequestStatus::accepted);
  auto f = g.next_frame(1);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->flow_id, 7u);
  EXPECT_FALSE(g.next_frame(1).has_value());
  EXPECT_EQ(g.next_due(1), 2u);
  f = g.next_frame(2);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->flow_id, 8u);
  EXPECT_EQ(g.frames(), 2u);
  // Each flow's gap runs from its own frame: 7 at 11, 8 at 12.
  EXPECT_EQ(g.xon(3, 7), FgfcRequestStatus::accepted);
  EXPECT_EQ(g.xon(3, 8), FgfcRequestStatus::accepted);
  EXPECT_EQ(g.next_due(3), 11u);
  EXPECT_TRUE(g.next_frame(11).has_value());
  EXPECT_EQ(g.next_due(11), 12u);
  EXPECT_FALSE(g.next_frame(11).has_value());
  EXPECT_TRUE(g.next_frame(12).has_value());
}

TEST(FgfcGenerator, GapAndCoalescing) {
  FgfcGeneratorConfig c;
  c.slots = 2;
  c.gap = 10;
  FgfcGenerator g(c);
  EXPECT_EQ(g.xoff(0, 7, 100, 500), FgfcRequestStatus::accepted);
  EXPECT_FALSE(g.next_frame(0).has_value());  // eligible one cycle after the request
  auto f = g.next_frame(1);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, (FgfcFrame{7, true, 100, 500}));
  // Two requests inside the gap: the latest wins, sent when the gap ends (cycle 11).
  EXPECT_EQ(g.xoff(2, 7, 50), FgfcRequestStatus::accepted);
  EXPECT_EQ(g.xon(3, 7), FgfcRequestStatus::coalesced);
  EXPECT_EQ(g.next_due(4), 11u);
  EXPECT_FALSE(g.next_frame(10).has_value());
  f = g.next_frame(11);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, (FgfcFrame{7, false, 0, 0}));
  EXPECT_EQ(g.coalesced(), 1u);
  // Slot table full: a third flow is refused while two gaps run.
  EXPECT_EQ(g.xoff(12, 8, 1), FgfcRequestStatus::accepted);
  EXPECT_EQ(g.xoff(12, 9, 1), FgfcRequestStatus::full);
  EXPECT_EQ(g.refused(), 1u);
  EXPECT_TRUE(g.next_frame(13).has_value());
  // Flow 7's gap ended at 21 and nothing is pending: its slot frees.
  EXPECT_EQ(g.slots_in_use(21), 1u);
  EXPECT_EQ(g.xoff(21, 9, 1), FgfcRequestStatus::accepted);
  EXPECT_THROW(g.xoff(22, 9, 0), ModelError);
}

// Reference check under random traffic: per flow, frames are at least `gap` apart, each frame is the
// latest request made before it, every request is eventually sent, one frame per cycle at most.
TEST(FgfcGenerator, RandomAgainstReference) {
  FgfcGeneratorConfig c;
  c.slots = 4;
  c.gap = 7;
  FgfcGenerator g(c);
  Rng rng(11, 0);
  std::map<std::uint32_t, FgfcFrame> latest;    // latest accepted request per flow not yet sent
  std::map<std::uint32_t, std::uint64_t> last;  // cycle of the last frame per flow
  std::uint64_t sent = 0;
  for (std::uint64_t now = 0; now < 20000; ++now) {
    if (rng.below(4) != 0) {  // link ready
      if (auto f = g.next_frame(now)) {
        ++sent;
        auto l = last.find(f->flow_id);
        if (l != last.end()) {
          ASSERT_GE(now - l->second, c.gap);
        }
        last[f->flow_id] = now;
        auto it = latest.find(f->flow_id);
        ASSERT_NE(it, latest.end());
        ASSERT_EQ(it->second, *f);
        latest.erase(it);
      }
    }
    if (now < 19000 && rng.below(3) == 0) {
      const std::uint32_t flow = static_cast<std::uint32_t>(rng.below(6));
      FgfcFrame fr{flow, rng.below(2) == 0, 0, 0};
      if (fr.xoff) {
        fr.period = static_cast<std::uint16_t>(1 + rng.below(1000));
        fr.credit = static_cast<std::uint32_t>(rng.below(1 << 24));
      }
      const auto s = g.request(now, fr);
      if (s != FgfcRequestStatus::full) {
        ASSERT_EQ(s == FgfcRequestStatus::coalesced, latest.count(flow) == 1);
        latest[flow] = fr;
      }
    }
  }
  EXPECT_TRUE(latest.empty());
  EXPECT_EQ(sent, g.frames());
  EXPECT_GT(g.coalesced(), 0u);
  EXPECT_GT(g.refused(), 0u);
}

TEST(FgfcCache, PauseCreditExpiryAndFallback) {
  FgfcCacheConfig c;
  c.entries = 2;
  FgfcCache cache(c);
  EXPECT_EQ(cache.apply(0, {1, true, 100, 3000}), FgfcApplyStatus::paused);
  EXPECT_EQ(cache.lookup(10, 1).paused, true);
  EXPECT_EQ(cache.lookup(10, 1).credit_left, 3000u);
  EXPECT_TRUE(cache.consume_credit(10, 1, 1000));
  EXPECT_FALSE(cache.consume_credit(10, 1, 2001));
  EXPECT_EQ(cache.lookup(10, 1).credit_left, 2000u);
  EXPECT_EQ(cache.lookup(10, 2).paused, false);
  EXPECT_EQ(cache.apply(20, {2, true, 10, 0}), FgfcApplyStatus::paused);
  EXPECT_EQ(cache.apply(21, {3, true, 10, 0}), FgfcApplyStatus::fall_back_to_class_pause);
  EXPECT_EQ(cache.fallbacks(), 1u);
  EXPECT_EQ(cache.apply(22, {1, true, 50, 0}), FgfcApplyStatus::updated);
  EXPECT_FALSE(cache.lookup(30, 2).paused);  // period expired at 30
  EXPECT_EQ(cache.apply(30, {3, true, 10, 0}), FgfcApplyStatus::paused);
  EXPECT_EQ(cache.apply(31, {1, false, 0, 0}), FgfcApplyStatus::resumed);
  EXPECT_FALSE(cache.lookup(31, 1).paused);
  EXPECT_EQ(cache.apply(31, {1, false, 0, 0}), FgfcApplyStatus::xon_unknown_flow);
  EXPECT_EQ(cache.high_water(), 2u);
  FgfcCacheConfig bad;
  bad.entries = 0;
  EXPECT_THROW(FgfcCache{bad}, InputError);
}

}  // namespace
}  // namespace netasic
