// The telemetry path selector (tlm/blocks/telemetry_path.h) against hand-worked cases: the port encoding,
// the switching rule (Delta1, Delta2), the R / 3R round timeout, a lost PTM or PTR, the PTM schedule
// (every max(cwnd, Delta3) data packets, round robin).
#include <gtest/gtest.h>

#include <set>

#include "tlm/blocks/telemetry_path.h"

namespace netasic {
namespace {

constexpr Ps kUs = kPsPerUs;

TelemetryConfig cfg(std::uint32_t candidates = 8, std::uint32_t initial = 3) {
  TelemetryConfig c;
  c.candidates = candidates;
  c.initial_probes = initial;
  c.mtu_time_ps = 1000;  // T = 1 ns: Delta2 * T = 75 ns
  c.probe_timeout_ps = 100 * kUs;
  return c;
}

TEST(TelemetryPort, MostSignificantBitSelectsNonShortest) {
  EXPECT_FALSE(port_is_non_shortest(0x7fff));
  EXPECT_TRUE(port_is_non_shortest(0x8000));
  PathSelector s(cfg(), 1, 2);
  ASSERT_EQ(s.candidate_ports().size(), 8u);
  EXPECT_FALSE(port_is_non_shortest(s.candidate_ports()[0]));
  std::set<std::uint16_t> distinct(s.candidate_ports().begin(), s.candidate_ports().end());
  EXPECT_EQ(distinct.size(), 8u);
  for (std::size_t i = 1; i < 8; ++i) EXPECT_TRUE(port_is_non_shortest(s.candidate_ports()[i]));
  EXPECT_EQ(s.current_port(), s.candidate_ports()[0]);  // first packets on a shortest path
}

TEST(TelemetryPort, IntermediateGroupAvoidsSourceAndDestinationAndCoversTheRest) {
  // Nine groups (D1), source 2, destination 6: the 15 bits reach each of the other seven groups.
  std::set<std::uint32_t> seen;
  for (std::uint32_t bits = 0; bits < 0x8000; ++bits) {
    const auto port = static_cast<std::uint16_t>(kNonShortestBit | bits);
    const std::uint32_t g = intermediate_group(port, 9, 2, 6);
    ASSERT_LT(g, 9u);
    ASSERT_NE(g, 2u);
    ASSERT_NE(g, 6u);
    // The hash reads only the 15 bits.
    ASSERT_EQ(g, intermediate_group(static_cast<std::uint16_t>(bits), 9, 2, 6));
    seen.insert(g);
  }
  EXPECT_EQ(seen.size(), 7u);
}

TEST(TelemetryPort, CandidatesReachEveryIntermediateGroupOnce) {
  // Section III: the candidates are the shortest path and the non-shortest path through each of the
  // |G| - 2 other groups. D1: 9 groups, 8 candidates, any source and destination group.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    PathSelector s(cfg(8, 3), seed, seed * 7);
    for (std::uint32_t src = 0; src < 9; ++src)
      for (std::uint32_t dst = 0; dst < 9; ++dst) {
        if (src == dst) continue;
        std::set<std::uint32_t> groups;
        for (std::size_t i = 1; i < 8; ++i) groups.insert(intermediate_group(s.candidate_ports()[i], 9, src, dst));
        ASSERT_EQ(groups.size(), 7u) << "seed " << seed << " groups " << src << " -> " << dst;
      }
  }
}

TEST(TelemetrySwitch, Delta1AndDelta2BothMustHold) {
  PathSelector s(cfg(), 1, 1);
  EXPECT_TRUE(s.better(790000, 1000000));   // 0.79 < 0.8 and 210 ns > 75 ns
  EXPECT_FALSE(s.better(810000, 1000000));  // not below 0.8 x
  EXPECT_TRUE(s.better(20000, 100000));     // 80 ns > 75 ns
  EXPECT_FALSE(s.better(10000, 80000));     // ratio fine, but only 70 ns apart
  EXPECT_FALSE(s.better(0, 75000));         // exactly 75 ns apart: not more than Delta2 x T
  EXPECT_FALSE(s.better(100, 0));
}

TEST(TelemetryRound, WaitsTwoRAfterTheFirstPtrThenTakesTheBestThatReplied) {
  PathSelector s(cfg(8, 3), 7, 3);
  const std::vector<std::uint16_t> probes = s.start(0);
  ASSERT_EQ(probes.size(), 3u);
  for (std::uint16_t p : probes) EXPECT_NE(p, s.current_port());
  const std::uint16_t first = s.current_port();
  s.on_ack_delay(first, 1000000);  // the current path: 1 us of queuing
  EXPECT_FALSE(s.on_ptr(probes[0], 600000, 10 * kUs));  // R = 10 us: the round ends by 30 us
  EXPECT_EQ(s.deadline(), 30 * kUs);
  EXPECT_FALSE(s.on_ptr(probes[1], 500000, 20 * kUs));
  EXPECT_FALSE(s.on_time(30 * kUs - 1));
  EXPECT_TRUE(s.round_open());
  EXPECT_TRUE(s.on_time(30 * kUs));  // the third PTR is lost: the best of the two that came back
  EXPECT_EQ(s.current_port(), probes[1]);
  EXPECT_EQ(s.current_delay(), 500000u);
  EXPECT_EQ(s.switches(), 1u);
  EXPECT_EQ(s.rounds_timed_out(), 1u);
  EXPECT_FALSE(s.on_ptr(probes[2], 1, 31 * kUs));  // late PTR: its round is over
  EXPECT_EQ(s.current_port(), probes[1]);
}

TEST(TelemetryRound, AllPtrsBackEndTheRoundAtOnce) {
  PathSelector s(cfg(8, 2), 9, 4);
  const std::vector<std::uint16_t> probes = s.start(0);
  s.on_ack_delay(s.current_port(), 100000);
  EXPECT_FALSE(s.on_ptr(probes[0], 90000, 5 * kUs));
  // The second closes the round: 90 ns vs 100 ns is not better (ratio 0.9), 10 ns vs 100 ns is (0.1, 90 ns).
  EXPECT_TRUE(s.on_ptr(probes[1], 10000, 6 * kUs));
  EXPECT_FALSE(s.round_open());
  EXPECT_EQ(s.current_port(), probes[1]);
}

TEST(TelemetryRound, NoBetterPathKeepsTheCurrentOne) {
  PathSelector s(cfg(8, 2), 9, 4);
  const std::vector<std::uint16_t> probes = s.start(0);
  const std::uint16_t first = s.current_port();
  s.on_ack_delay(first, 100000);
  s.on_ptr(probes[0], 90000, 5 * kUs);
  EXPECT_FALSE(s.on_ptr(probes[1], 95000, 6 * kUs));
  EXPECT_EQ(s.current_port(), first);
  EXPECT_EQ(s.switches(), 0u);
}

TEST(TelemetryRound, ARoundEndingBeforeTheCurrentPathIsMeasuredLetsItsFirstAckDecide) {
  // The flow's first round: the PTRs of idle alternatives come back before any ACK of the first data packets.
  PathSelector s(cfg(8, 2), 9, 4);
  const std::vector<std::uint16_t> probes = s.start(0);
  const std::uint16_t first = s.current_port();
  EXPECT_FALSE(s.on_ptr(probes[0], 30000, 2 * kUs));
  EXPECT_FALSE(s.on_ptr(probes[1], 10000, 3 * kUs));  // the round ends: nothing to compare with yet
  EXPECT_FALSE(s.round_open());
  EXPECT_TRUE(s.decision_pending());
  EXPECT_EQ(s.current_port(), first);
  // The first ACK reflects 50 us of queuing on the current path: the best alternative (10 ns) is better.
  EXPECT_TRUE(s.on_ack_delay(first, 50 * kUs));
  EXPECT_EQ(s.current_port(), probes[1]);
  EXPECT_EQ(s.current_delay(), 10000u);
  EXPECT_FALSE(s.decision_pending());
  EXPECT_EQ(s.switches(), 1u);
}

TEST(TelemetryRound, APendingAlternativeNotBetterThanTheFirstAckIsDropped) {
  PathSelector s(cfg(8, 2), 9, 4);
  const std::vector<std::uint16_t> probes = s.start(0);
  const std::uint16_t first = s.current_port();
  s.on_ptr(probes[0], 30000, 2 * kUs);
  s.on_ptr(probes[1], 10000, 3 * kUs);
  EXPECT_FALSE(s.on_ack_delay(static_cast<std::uint16_t>(first ^ 1), 50 * kUs));  // not the current path
  EXPECT_TRUE(s.decision_pending());
  EXPECT_FALSE(s.on_ack_delay(first, 60000));  // 10 ns vs 60 ns: only 50 ns apart (Delta2 x T = 75 ns)
  EXPECT_FALSE(s.decision_pending());
  EXPECT_FALSE(s.on_ack_delay(first, 50 * kUs));  // decided once: a later ACK alone moves nothing
  EXPECT_EQ(s.current_port(), first);
  EXPECT_EQ(s.switches(), 0u);
}

TEST(TelemetryRound, EveryPtmLostNeverStallsTheChoice) {
  PathSelector s(cfg(8, 3), 5, 5);
  s.start(0);
  s.on_ack_delay(s.current_port(), 10000000);
  EXPECT_FALSE(s.on_time(100 * kUs - 1));
  EXPECT_FALSE(s.on_time(100 * kUs));  // no PTR at all: the round ends on the probe timeout, no change
  EXPECT_FALSE(s.round_open());
  EXPECT_EQ(s.rounds_timed_out(), 1u);
  // The periodic PTM still goes, and its PTR can move the flow.
  std::uint16_t probe = 0;
  bool due = false;
  for (int i = 0; i < 100; ++i) due = s.on_data_sent(0, 200 * kUs, probe);
  ASSERT_TRUE(due);
  EXPECT_TRUE(s.on_ptr(probe, 1000, 210 * kUs));
  EXPECT_EQ(s.current_port(), probe);
}

TEST(TelemetrySchedule, PtmEveryMaxOfCwndAndDelta3RoundRobin) {
  PathSelector s(cfg(4, 0), 3, 3);
  EXPECT_TRUE(s.start(0).empty());
  std::uint16_t probe = 0;
  std::vector<std::uint16_t> probed;
  // cwnd below Delta3 = 100: one PTM per 100 packets.
  for (int i = 1; i <= 300; ++i) {
    const bool due = s.on_data_sent(10, 0, probe);
    EXPECT_EQ(due, i % 100 == 0) << i;
    if (due) {
      probed.push_back(probe);
      s.on_time(200 * kUs);  // close the round (no PTR)
    }
  }
  // Round robin over the three candidates other than the current.
  const auto& c = s.candidate_ports();
  EXPECT_EQ(probed, (std::vector<std::uint16_t>{c[1], c[2], c[3]}));
  // cwnd of 150 packets: one PTM per 150.
  int count = 0;
  for (int i = 1; i <= 300; ++i) count += s.on_data_sent(150, 0, probe) ? 1 : 0;
  EXPECT_EQ(count, 2);
}

TEST(TelemetryAck, OnlyTheCurrentPathsAckUpdatesItsDelay) {
  PathSelector s(cfg(), 1, 1);
  s.on_ack_delay(static_cast<std::uint16_t>(s.current_port() ^ 1), 5);
  EXPECT_FALSE(s.current_known());
  s.on_ack_delay(s.current_port(), 5);
  EXPECT_TRUE(s.current_known());
  EXPECT_EQ(s.current_delay(), 5u);
}

}  // namespace
}  // namespace netasic
