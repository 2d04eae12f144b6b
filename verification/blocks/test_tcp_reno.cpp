// The Reno / NewReno window (tlm/blocks/tcp_reno.h) against the rules of RFC 5681, 3465, 6582 and 6298,
// each expected value worked out from those rules in the test.
#include <gtest/gtest.h>

#include <cmath>

#include "tlm/blocks/tcp_reno.h"

namespace netasic {
namespace {

constexpr std::uint64_t kMss = 1000;

TcpConfig cfg(std::uint64_t iw_packets = 2) {
  TcpConfig c;
  c.mss = kMss;
  c.initial_window = iw_packets * kMss;
  c.min_rto = 1000 * kPsPerUs;
  return c;
}

// One round trip on an idle path: the whole window goes out, and its packets come back acknowledged
// `ack_every` at a time. Returns the send point after the round.
std::uint32_t round_trip(TcpReno& w, std::uint32_t nxt, std::uint32_t ack_every) {
  const auto window = static_cast<std::uint32_t>(w.cwnd() / kMss);
  const std::uint32_t sent = nxt + window;  // sent before the first ACK comes back
  for (std::uint32_t a = nxt + ack_every; a <= sent; a += ack_every) EXPECT_EQ(w.on_ack(a, sent), TcpReno::Resend::none);
  return sent;
}

TEST(TcpReno, Rfc3390InitialWindow) {
  TcpConfig c = cfg();
  c.initial_window = 0;
  c.mss = 1460;
  EXPECT_EQ(TcpReno(c).cwnd(), 4380u);  // min(4 * 1460, max(2 * 1460, 4380))
  c.mss = 4096;
  EXPECT_EQ(TcpReno(c).cwnd(), 8192u);  // 2 segments
  c.mss = 1000;
  EXPECT_EQ(TcpReno(c).cwnd(), 4000u);  // 4 segments
}

// Slow start doubles the window per round trip, whether every packet or every second one is acknowledged
// (byte counting with L = 2 segments): after k rounds, IW * 2^k.
TEST(TcpReno, SlowStartDoublesPerRoundTrip) {
  for (std::uint32_t ack_every : {1u, 2u}) {
    TcpReno w(cfg(2));
    std::uint32_t nxt = 0;
    for (int k = 1; k <= 8; ++k) {
      nxt = round_trip(w, nxt, ack_every);
      EXPECT_EQ(w.cwnd(), 2 * kMss << k) << "round " << k << ", ack every " << ack_every;
    }
  }
}

// With ACKs for every fourth packet the L = 2 cap bites: 2 segments per 4 acknowledged, x1.5 per round.
TEST(TcpReno, ByteCountingCapsTheSlowStartStep) {
  TcpReno w(cfg(8));
  round_trip(w, 0, 4);
  EXPECT_EQ(w.cwnd(), 12 * kMss);
}

// Congestion avoidance: one segment per window of bytes acknowledged.
TEST(TcpReno, CongestionAvoidanceAddsOneSegmentPerRoundTrip) {
  TcpReno w(cfg(10));
  // Enter congestion avoidance: a loss sets ssthresh = flight / 2 = 5 segments, and recovery ends there.
  for (int d = 0; d < 3; ++d) w.on_ack(0, 10);
  EXPECT_EQ(w.on_ack(10, 10), TcpReno::Resend::none);
  EXPECT_EQ(w.cwnd(), 5 * kMss);
  std::uint32_t nxt = 10;
  for (int k = 1; k <= 5; ++k) {
    nxt = round_trip(w, nxt, 1);
    EXPECT_EQ(w.cwnd(), (5 + static_cast<std::uint64_t>(k)) * kMss);
  }
}

// A single loss: the third duplicate ACK resends it with ssthresh = flight / 2 and the window at ssthresh
// + 3 segments; each further duplicate adds one; the ACK covering everything sent ends recovery with the
// window halved.
TEST(TcpReno, ThreeDuplicatesFastRetransmitAndHalve) {
  TcpReno w(cfg(16));
  const std::uint32_t nxt = 16;  // a full window out, packet 4 lost
  for (std::uint32_t a = 1; a <= 4; ++a) w.on_ack(a, nxt);
  // cwnd grew by 4 in slow start; the 12 packets after the hole bring duplicates.
  EXPECT_EQ(w.cwnd(), 20 * kMss);
  EXPECT_EQ(w.on_ack(4, nxt), TcpReno::Resend::none);
  EXPECT_EQ(w.on_ack(4, nxt), TcpReno::Resend::none);
  EXPECT_EQ(w.on_ack(4, nxt), TcpReno::Resend::fast_retransmit);
  const std::uint64_t flight = (nxt - 4) * kMss;
  EXPECT_EQ(w.ssthresh(), flight / 2);
  EXPECT_EQ(w.cwnd(), flight / 2 + 3 * kMss);
  EXPECT_TRUE(w.in_recovery());
  for (int d = 0; d < 9; ++d) w.on_ack(4, nxt);
  EXPECT_EQ(w.cwnd(), flight / 2 + 12 * kMss);
  EXPECT_EQ(w.on_ack(nxt, nxt), TcpReno::Resend::none);
  EXPECT_FALSE(w.in_recovery());
  EXPECT_EQ(w.cwnd(), flight / 2);
  EXPECT_EQ(w.fast_retransmits(), 1u);
}

// Two losses in one window: the partial ACK resends the second hole at once, without a new halving.
TEST(TcpReno, PartialAckResendsTheNextHole) {
  TcpReno w(cfg(10));
  const std::uint32_t nxt = 10;  // packets 2 and 6 lost
  w.on_ack(1, nxt);
  w.on_ack(2, nxt);
  for (int d = 0; d < 2; ++d) w.on_ack(2, nxt);
  EXPECT_EQ(w.on_ack(2, nxt), TcpReno::Resend::fast_retransmit);
  const std::uint64_t ssthresh = w.ssthresh();
  EXPECT_EQ(ssthresh, 4 * kMss);  // 8 in flight
  EXPECT_EQ(w.on_ack(6, nxt), TcpReno::Resend::partial_ack);
  EXPECT_TRUE(w.in_recovery());
  EXPECT_EQ(w.ssthresh(), ssthresh);
  // Three more duplicates of the second hole start no second recovery.
  for (int d = 0; d < 3; ++d) EXPECT_EQ(w.on_ack(6, nxt), TcpReno::Resend::none);
  EXPECT_EQ(w.on_ack(nxt, nxt), TcpReno::Resend::none);
  EXPECT_EQ(w.cwnd(), ssthresh);
  EXPECT_EQ(w.fast_retransmits(), 1u);
  EXPECT_EQ(w.partial_acks(), 1u);
}

// Fewer duplicates than the threshold (reordering) change nothing.
TEST(TcpReno, TwoDuplicatesAreReorderingNotLoss) {
  TcpReno w(cfg(10));
  w.on_ack(3, 10);
  const std::uint64_t before = w.cwnd();
  EXPECT_EQ(w.on_ack(3, 10), TcpReno::Resend::none);
  EXPECT_EQ(w.on_ack(3, 10), TcpReno::Resend::none);
  EXPECT_EQ(w.cwnd(), before);
  EXPECT_FALSE(w.in_recovery());
}

// A timeout: one segment, ssthresh = flight / 2; the duplicates of data sent before it start no fast
// retransmit (NewReno's recover).
TEST(TcpReno, TimeoutRestartsFromOneSegment) {
  TcpReno w(cfg(10));
  w.on_timeout(10, 10);
  EXPECT_EQ(w.cwnd(), kMss);
  EXPECT_EQ(w.ssthresh(), 5 * kMss);
  for (int d = 0; d < 5; ++d) EXPECT_EQ(w.on_ack(0, 1), TcpReno::Resend::none);
  EXPECT_EQ(w.fast_retransmits(), 0u);
  // Slow start back to ssthresh, then linear.
  w.on_ack(1, 1);
  EXPECT_EQ(w.cwnd(), 2 * kMss);
}

// RFC 6298: the first sample sets srtt = R, rttvar = R / 2; RTO = max(min_rto, srtt + 4 rttvar), doubled per
// expiry, back to the estimate on new data acknowledged.
TEST(TcpReno, RetransmissionTimeoutEstimateFloorAndBackoff) {
  TcpConfig c = cfg();
  c.min_rto = 100 * kPsPerUs;
  TcpReno w(c);
  EXPECT_EQ(w.rto(), 100 * kPsPerUs);  // before a sample
  w.rtt_sample(10 * kPsPerUs);
  EXPECT_EQ(w.rto(), 100 * kPsPerUs);  // 10 + 4 * 5 = 30 us is under the floor
  w.rtt_sample(10 * kPsPerUs);
  w.on_timeout(2, 2);
  EXPECT_EQ(w.rto(), 200 * kPsPerUs);
  w.on_timeout(1, 2);
  EXPECT_EQ(w.rto(), 400 * kPsPerUs);
  w.on_ack(1, 1);
  EXPECT_EQ(w.rto(), 100 * kPsPerUs);
  TcpConfig d = cfg();
  d.min_rto = 1 * kPsPerUs;
  TcpReno v(d);
  v.rtt_sample(40 * kPsPerUs);  // srtt 40, rttvar 20
  EXPECT_EQ(v.rto(), 120 * kPsPerUs);
  v.rtt_sample(20 * kPsPerUs);  // rttvar = 3/4 20 + 1/4 20 = 20, srtt = 7/8 40 + 1/8 20 = 37.5
  EXPECT_EQ(v.rto(), 117500 * kPsPerNs);
}

// The receive window (max_window) and a clamp from another controller bound the window.
TEST(TcpReno, WindowCapsAndClamp) {
  TcpConfig c = cfg(4);
  c.max_window = 6 * kMss;
  TcpReno w(c);
  round_trip(w, 0, 1);
  EXPECT_EQ(w.cwnd(), 6 * kMss);
  EXPECT_TRUE(w.allows(6));
  EXPECT_FALSE(w.allows(7));
  EXPECT_TRUE(w.allows(1));
  w.clamp(3 * kMss);
  EXPECT_EQ(w.cwnd(), 3 * kMss);
  w.clamp(10);
  EXPECT_EQ(w.cwnd(), kMss);
}

}  // namespace
}  // namespace netasic
