// The tcp transport (tlm/model/transport_tcp.cpp) driven through its interface: what the receiver
// acknowledges and when, and what the sender resends, with its window (tlm/blocks/tcp_reno.h).
#include <gtest/gtest.h>

#include "tlm/common/error.h"
#include "verification/unit/transport_harness.h"

namespace netasic {
namespace {

constexpr std::uint32_t kMss = 1000;

NicConfig tcp_config(std::uint32_t iw_packets, std::uint32_t ack_every) {
  NicConfig c;
  c.mtu_bytes = kMss;
  c.transport = TransportKind::tcp;
  c.tcp_config.mss = kMss;
  c.tcp_config.initial_window = std::uint64_t{iw_packets} * kMss;
  c.tcp_config.ack_every = ack_every;
  c.tcp_config.tso_bytes = 0;
  return c;
}

// Sends what the window allows; returns the PSNs sent.
std::vector<std::uint32_t> send_all(TransportHarness& h, Flow& f) {
  std::vector<std::uint32_t> sent;
  for (SendChoice c = h.send(f); c.kind == SendChoice::ready; c = h.send(f)) sent.push_back(c.psn);
  return sent;
}

// Every control packet the receiver queued goes back to the sender; returns their acknowledged PSNs.
std::vector<std::uint32_t> return_acks(TransportHarness& h, Flow& f) {
  std::vector<std::uint32_t> acks;
  while (Packet* a = h.pop_control()) {
    acks.push_back(a->ack_psn);
    h.ack(f, a);
  }
  return acks;
}

TEST(TcpTransport, AcksEveryNthInOrderPacketAndAtOnceOutOfOrder) {
  TransportHarness h(tcp_config(10, 3));
  Flow& f = h.add_flow(10);
  EXPECT_EQ(send_all(h, f).size(), 10u);
  for (std::uint32_t psn : {0u, 1u, 2u, 3u, 4u}) h.data(f, psn);
  // Packets 0-2 make one ACK (next expected 3); 3 and 4 wait for the third or the delayed-ACK timer.
  EXPECT_EQ(return_acks(h, f), (std::vector<std::uint32_t>{3}));
  h.data(f, 6);  // out of order: a duplicate ACK at once, still expecting 5
  h.data(f, 7);
  EXPECT_EQ(return_acks(h, f), (std::vector<std::uint32_t>{5, 5}));
  h.data(f, 5);  // fills the hole: acknowledged at once, up to 8
  EXPECT_EQ(return_acks(h, f), (std::vector<std::uint32_t>{8}));
  h.data(f, 5);  // a duplicate: acknowledged at once
  EXPECT_EQ(return_acks(h, f), (std::vector<std::uint32_t>{8}));
  EXPECT_EQ(f.duplicates, 1u);
  EXPECT_EQ(f.expected_psn, 8u);
}

// One packet lost out of a window of ten: three duplicate ACKs resend it before any new data, the window
// is halved (ssthresh = flight / 2), and recovery ends at ssthresh once the hole is filled.
TEST(TcpTransport, SingleDropFastRetransmitHalvesTheWindow) {
  TransportHarness h(tcp_config(10, 1));
  Flow& f = h.add_flow(40);
  EXPECT_EQ(send_all(h, f).size(), 10u);
  for (std::uint32_t psn = 0; psn < 10; ++psn)
    if (psn != 3) h.data(f, psn);  // 3 lost
  // ACKs 1, 2, 3, then six duplicates of 3.
  const std::vector<std::uint32_t> acks = return_acks(h, f);
  ASSERT_EQ(acks.size(), 9u);
  EXPECT_EQ(acks.back(), 3u);
  const TcpReno* w = h.transport().tcp_window(f);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->fast_retransmits(), 1u);
  const std::uint64_t flight_at_loss = (10 - 3) * kMss;
  EXPECT_EQ(w->ssthresh(), flight_at_loss / 2);
  EXPECT_TRUE(w->in_recovery());
  const SendChoice resend = h.send(f);
  ASSERT_EQ(resend.kind, SendChoice::ready);
  EXPECT_TRUE(resend.resend);
  EXPECT_EQ(resend.psn, 3u);
  // ssthresh + 3 mss at the third duplicate, one more for each of the three after it: new packets may go
  // up to cwnd / mss outstanding (7 are).
  const auto inflated = static_cast<std::uint32_t>(w->cwnd() / kMss);
  EXPECT_EQ(w->cwnd(), flight_at_loss / 2 + 6 * kMss);
  const std::vector<std::uint32_t> more = send_all(h, f);
  EXPECT_EQ(more.size(), inflated - 7u);
  h.data(f, 3);
  return_acks(h, f);
  EXPECT_FALSE(w->in_recovery());
  EXPECT_EQ(w->cwnd(), flight_at_loss / 2);
  EXPECT_EQ(f.expected_psn, 10u);
  EXPECT_EQ(w->fast_retransmits(), 1u);
}

// Segmentation offload: a flow that starts a burst sends tso_bytes back to back; the other flow waits.
TEST(TcpTransport, OffloadBurstsGoBackToBack) {
  NicConfig c = tcp_config(10, 1);
  c.tcp_config.tso_bytes = 4 * kMss;
  TransportHarness h(c);
  h.add_flow(20);
  h.add_flow(20);
  Flow& a = h.flow(0);
  Flow& b = h.flow(1);
  EXPECT_EQ(h.send(a).kind, SendChoice::ready);
  // The NIC's round robin asks b next: it waits until a's burst of 4 is out.
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(h.send(b).kind, SendChoice::blocked);
    EXPECT_EQ(h.send(a).kind, SendChoice::ready);
  }
  EXPECT_EQ(h.send(b).kind, SendChoice::ready);  // a's burst is over: b starts its own
  EXPECT_EQ(h.send(a).kind, SendChoice::blocked);
  EXPECT_EQ(a.next_psn, 4u);
  // A burst owner the NIC did not send when offered (held by something the transport does not see) gives
  // the link up at the next flow's turn.
  EXPECT_EQ(h.transport().next(b).kind, SendChoice::ready);  // offered, not sent
  EXPECT_EQ(h.send(a).kind, SendChoice::ready);
}

TEST(TcpTransport, RejectsARateBasedController) {
  NicConfig c = tcp_config(2, 1);
  c.cc = CongestionControlKind::dcqcn;
  EXPECT_THROW(TransportHarness h(c), InputError);
}

}  // namespace
}  // namespace netasic
