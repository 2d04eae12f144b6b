#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "tlm/blocks/selective_repeat.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic {
namespace {

std::vector<SackBlock> sack(const SackReceiver& rx, std::uint32_t recent, std::size_t max = 4) {
  std::vector<SackBlock> b(max);
  b.resize(rx.blocks(recent, b.data(), max));
  return b;
}

TEST(SackReceiver, PlacesEarlyPacketsAndAdvancesTheCumulativePoint) {
  SackReceiver rx;
  EXPECT_TRUE(rx.place(2));
  EXPECT_TRUE(rx.place(5));
  EXPECT_TRUE(rx.place(6));
  EXPECT_EQ(rx.cumulative(), 0u);
  EXPECT_EQ(rx.ranges(), 2u);
  EXPECT_EQ(sack(rx, 6), (std::vector<SackBlock>{{5, 7}, {2, 3}}));  // the recent range first
  EXPECT_EQ(sack(rx, 2), (std::vector<SackBlock>{{2, 3}, {5, 7}}));
  EXPECT_EQ(sack(rx, 6, 1), (std::vector<SackBlock>{{5, 7}}));
  EXPECT_FALSE(rx.place(5));  // duplicate inside a range
  EXPECT_TRUE(rx.place(0));
  EXPECT_EQ(rx.cumulative(), 1u);
  EXPECT_TRUE(rx.place(1));  // fills the hole: joins the range [2, 3)
  EXPECT_EQ(rx.cumulative(), 3u);
  EXPECT_FALSE(rx.place(1));  // duplicate below the cumulative point
  EXPECT_TRUE(rx.place(4));  // joins [5, 7) from below
  EXPECT_EQ(rx.cumulative(), 3u);
  EXPECT_EQ(sack(rx, 4), (std::vector<SackBlock>{{4, 7}}));
  EXPECT_TRUE(rx.place(3));
  EXPECT_EQ(rx.cumulative(), 7u);
  EXPECT_EQ(rx.ranges(), 0u);
  EXPECT_EQ(rx.max_ranges(), 2u);
  EXPECT_TRUE(sack(rx, 3).empty());
}

TEST(SackReceiver, MergesARangeFromBothSides) {
  SackReceiver rx;
  rx.place(10);
  rx.place(12);
  rx.place(11);
  EXPECT_EQ(sack(rx, 11), (std::vector<SackBlock>{{10, 13}}));
  rx.place(9);
  EXPECT_EQ(sack(rx, 9), (std::vector<SackBlock>{{9, 13}}));
  EXPECT_EQ(rx.ranges(), 1u);
}

// Random arrival orders: the cumulative point is always the first unplaced PSN, and the ranges are exactly
// the placed PSNs above it.
TEST(SackReceiver, MatchesABitmapOnRandomOrders) {
  Rng rng(7, 1);
  for (int trial = 0; trial < 50; ++trial) {
    const std::uint32_t n = 1 + static_cast<std::uint32_t>(rng.below(200));
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    for (std::uint32_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    SackReceiver rx;
    std::vector<bool> got(n, false);
    for (std::uint32_t psn : order) {
      ASSERT_TRUE(rx.place(psn));
      got[psn] = true;
      std::uint32_t cum = 0;
      while (cum < n && got[cum]) ++cum;
      ASSERT_EQ(rx.cumulative(), cum);
      std::vector<SackBlock> b(256);
      b.resize(rx.blocks(psn, b.data(), b.size()));
      std::set<std::uint32_t> covered;
      for (const SackBlock& k : b)
        for (std::uint32_t s = k.start; s < k.end; ++s) ASSERT_TRUE(covered.insert(s).second);
      for (std::uint32_t s = cum; s < n; ++s) ASSERT_EQ(covered.count(s) == 1, static_cast<bool>(got[s])) << s;
      ASSERT_FALSE(rx.place(psn));
    }
    EXPECT_EQ(rx.cumulative(), n);
  }
}

void send(SrSender& tx, std::initializer_list<std::uint32_t> psns) {
  for (auto p : psns) tx.sent(p, 100);
}

TEST(SrSender, CumulativeAckReleasesAndCountsBytes) {
  SrSender tx(10, 3);
  send(tx, {0, 1, 2, 3});
  EXPECT_EQ(tx.inflight_bytes(), 400u);
  SrAckResult r;
  tx.on_sack(2, nullptr, 0, r);
  EXPECT_EQ(r.acked, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_TRUE(r.lost.empty());
  EXPECT_EQ(tx.cumulative(), 2u);
  EXPECT_EQ(tx.inflight_bytes(), 200u);
  EXPECT_EQ(tx.acked_count(), 2u);
}

TEST(SrSender, AHoleIsLostOnlyAfterDupthreshLaterPacketsArrive) {
  SrSender tx(10, 3);
  send(tx, {0, 1, 2, 3, 4, 5});
  SrAckResult r;
  const SackBlock b1{1, 3};
  tx.on_sack(0, &b1, 1, r);  // two packets after the hole: reordering, not loss
  EXPECT_EQ(r.acked, (std::vector<std::uint32_t>{1, 2}));
  EXPECT_TRUE(r.lost.empty());
  EXPECT_EQ(tx.state(0), SrState::in_flight);
  r.clear();
  const SackBlock b2{1, 4};
  tx.on_sack(0, &b2, 1, r);  // the third: 0 is lost
  EXPECT_EQ(r.lost, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(tx.state(0), SrState::lost);
  EXPECT_EQ(tx.inflight_bytes(), 200u);  // 4 and 5
  // More SACKs showing the same hole do not report it again (once per round).
  r.clear();
  const SackBlock b3{1, 5};
  tx.on_sack(0, &b3, 1, r);
  EXPECT_TRUE(r.lost.empty());
  // It is resent: it is judged against what is sent after the resend, not after the original.
  tx.sent(0, 100);
  r.clear();
  const SackBlock b4{1, 6};
  tx.on_sack(0, &b4, 1, r);
  EXPECT_TRUE(r.lost.empty());
  EXPECT_EQ(tx.state(0), SrState::in_flight);
  send(tx, {6, 7});
  r.clear();
  const SackBlock b5{1, 8};
  tx.on_sack(0, &b5, 1, r);  // only 2 packets sent after the resend were acknowledged
  EXPECT_TRUE(r.lost.empty());
  tx.sent(8, 100);
  r.clear();
  const SackBlock b6{1, 9};
  tx.on_sack(0, &b6, 1, r);  // the third: the resend is lost too
  EXPECT_EQ(r.lost, (std::vector<std::uint32_t>{0}));
  tx.sent(0, 100);
  r.clear();
  tx.on_sack(9, nullptr, 0, r);
  EXPECT_EQ(tx.cumulative(), 9u);
  EXPECT_EQ(tx.inflight_bytes(), 0u);
}

TEST(SrSender, SeveralHolesAreFoundInOneSack) {
  SrSender tx(20, 3);
  for (std::uint32_t p = 0; p < 12; ++p) tx.sent(p, 100);
  SrAckResult r;
  const SackBlock b[] = {{5, 7}, {8, 12}};
  tx.on_sack(2, b, 2, r);
  // 2, 3, 4 and 7 each have at least three acknowledged packets sent after them.
  EXPECT_EQ(r.lost, (std::vector<std::uint32_t>{2, 3, 4, 7}));
  EXPECT_EQ(tx.inflight_bytes(), 0u);
}

TEST(SrSender, ATailLossWaitsForTheTimeout) {
  SrSender tx(4, 3);
  send(tx, {0, 1, 2, 3});
  SrAckResult r;
  tx.on_sack(2, nullptr, 0, r);
  EXPECT_TRUE(r.lost.empty());
  std::vector<std::uint32_t> lost;
  tx.on_timeout(lost);
  EXPECT_EQ(lost, (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(tx.inflight_bytes(), 0u);
  // A late SACK for a packet presumed lost still acknowledges it.
  r.clear();
  const SackBlock b{3, 4};
  tx.on_sack(2, &b, 1, r);
  EXPECT_EQ(r.acked, (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(tx.state(3), SrState::acked);
  tx.sent(3, 100);  // never sent again once acknowledged
  EXPECT_EQ(tx.inflight_bytes(), 0u);
}

TEST(SrSender, RejectsAZeroThreshold) { EXPECT_THROW(SrSender(4, 0), InputError); }

}  // namespace
}  // namespace netasic
