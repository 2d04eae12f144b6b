// Transports driven directly through their interface (tlm/model/transport.h), without a NIC or a running
// kernel: data packets into the receiver side, ACK/NACKs into the sender side, and what each asks to send.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tlm/model/nic.h"
#include "tlm/model/transport.h"
#include "verification/unit/transport_harness.h"

namespace netasic {
namespace {

NicConfig config_for(TransportKind kind) {
  NicConfig c;
  c.mtu_bytes = 1000;
  c.transport = kind;
  return c;
}

// PacketBits answers reads from its set prefix and its highest bit where it can: every read must equal a plain
// bitset's after any sequence of sets (in order, reordered within a window, duplicates, far ahead, lost bits).
TEST(Transport, PacketBitsReadsAsAPlainBitset) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint32_t limit = 1 + rng() % 300;
    const std::uint32_t window = 1 + trial % 8;  // how far out of order a set may come
    const bool lossy = trial % 3 == 0;          // some packets never set
    PacketBits bits;
    std::vector<bool> ref(limit, false);
    std::uint32_t next = 0;
    for (int step = 0; step < 3 * static_cast<int>(limit); ++step) {
      std::uint32_t i;
      if (step % 17 == 16) i = rng() % limit;  // anywhere, duplicates included
      else i = std::min(limit - 1, next + static_cast<std::uint32_t>(rng() % window));
      if (i == next) ++next;
      if (lossy && rng() % 10 == 0) continue;
      bits.set(i, limit);
      ref[i] = true;
      for (std::uint32_t k = 0; k < limit + 3; ++k)
        ASSERT_EQ(bits[k], k < limit && ref[k]) << "trial " << trial << " step " << step << " bit " << k;
    }
  }
}

TEST(Transport, RegistryMakesEveryKind) {
  for (TransportKind kind : {TransportKind::basic, TransportKind::go_back_n, TransportKind::selective_repeat,
                             TransportKind::reorder, TransportKind::tcp}) {
    TransportHarness h(config_for(kind));
    // Only the basic transport acknowledges each packet by itself (what NIC-only Flowcut counts).
    EXPECT_EQ(h.transport().per_packet_acks(), kind == TransportKind::basic);
    EXPECT_FALSE(h.transport().ecn_capable());
    EXPECT_EQ(h.transport().congestion_control(), nullptr);
  }
}

TEST(Transport, BasicTurnsEachDataPacketIntoItsAck) {
  TransportHarness h(config_for(TransportKind::basic));
  Flow& f = h.add_flow(3);
  for (std::uint32_t psn = 0; psn < 3; ++psn) EXPECT_EQ(h.send(f).kind, SendChoice::ready);
  EXPECT_EQ(h.send(f).kind, SendChoice::done);
  EXPECT_EQ(f.inflight_bytes, 3000u);
  h.data(f, 1);  // out of order by one
  h.data(f, 0);
  h.data(f, 0);  // a duplicate
  EXPECT_EQ(f.ooo_packets, 1u);
  EXPECT_EQ(f.max_ooo_degree, 1u);
  EXPECT_EQ(f.duplicates, 1u);
  EXPECT_EQ(f.expected_psn, 2u);
  Packet* a = h.pop_control();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->type, PacketType::ack);
  EXPECT_EQ(a->ack_psn, 1u);
  EXPECT_EQ(a->src_host, 1u);
  EXPECT_EQ(a->echo_ts, 1234u);
  h.ack(f, a);
  EXPECT_EQ(f.acked_count, 1u);
  EXPECT_EQ(f.inflight_bytes, 2000u);
  h.drop_control();
}

TEST(Transport, GoBackNDropsOutOfOrderNacksOnceAndRewinds) {
  TransportHarness h(config_for(TransportKind::go_back_n));
  Flow& f = h.add_flow(4);
  for (std::uint32_t psn = 0; psn < 4; ++psn) h.send(f);
  h.data(f, 0);
  h.data(f, 2);  // packet 1 lost: dropped, one NACK for 1
  h.data(f, 3);  // dropped, no second NACK
  EXPECT_EQ(h.counters().receiver_drops, 2u);
  EXPECT_EQ(h.counters().nacks_sent, 1u);
  Packet* a0 = h.pop_control();
  Packet* n1 = h.pop_control();
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(h.pop_control(), nullptr);
  EXPECT_EQ(a0->type, PacketType::ack);
  EXPECT_EQ(n1->type, PacketType::nack);
  EXPECT_EQ(n1->ack_psn, 1u);
  h.ack(f, a0);
  EXPECT_EQ(f.acked_count, 1u);
  h.ack(f, n1);
  // Back to the NACKed packet, and on the scheduler's list again.
  EXPECT_EQ(f.next_psn, 1u);
  EXPECT_EQ(h.active().size(), 1u);
  const SendChoice c = h.send(f);
  EXPECT_EQ(c.psn, 1u);
  EXPECT_FALSE(c.resend);
  EXPECT_LT(c.psn, f.sent_high);  // the NIC marks it a retransmission
}

TEST(Transport, SelectiveRepeatResendsAHolePresumedLostFirst) {
  NicConfig c = config_for(TransportKind::selective_repeat);
  c.sr_dupthresh = 2;
  TransportHarness h(c);
  Flow& f = h.add_flow(5);
  for (std::uint32_t psn = 0; psn < 4; ++psn) h.send(f);
  h.data(f, 0);
  h.data(f, 2);
  h.data(f, 3);  // two packets sent after 1 arrived: 1 is presumed lost
  while (Packet* a = h.pop_control()) h.ack(f, a);
  EXPECT_EQ(f.acked_count, 3u);
  EXPECT_EQ(h.counters().fast_retransmits, 1u);
  const SendChoice r = h.send(f);
  EXPECT_EQ(r.kind, SendChoice::ready);
  EXPECT_TRUE(r.resend);
  EXPECT_EQ(r.psn, 1u);
  EXPECT_EQ(h.send(f).psn, 4u);  // then new data
  ASSERT_NE(h.transport().sack_receiver(f), nullptr);
}

TEST(Transport, ReorderNackLimitsInjectionUntilTheRejectedPacketIsAcknowledged) {
  NicConfig c = config_for(TransportKind::reorder);
  c.injection = NicConfig::Injection::adap_li;
  TransportHarness h(c);
  Flow& f = h.add_flow(4);
  h.finish_setup();
  ASSERT_NE(h.transport().reorder_buffer(), nullptr);
  EXPECT_EQ(h.transport().reorder_histogram().size(), 16u);
  h.send(f);
  h.send(f);
  // The destination rejected packet 1: it goes again before new data, and injection is limited (Adap-LI:
  // one packet per packet acknowledged).
  h.ack(f, h.control(f, PacketType::nack, 1));
  EXPECT_EQ(f.inflight_bytes, 1000u);
  SendChoice r = h.transport().next(f);
  EXPECT_TRUE(r.resend);
  EXPECT_EQ(r.psn, 1u);
  EXPECT_FALSE(r.injection_ok);  // no credit yet, packet 0 still in flight
  EXPECT_NE(h.transport().sender_detail(f).find("injection limited"), std::string::npos);
  h.ack(f, h.control(f, PacketType::ack, 0));  // one packet acknowledged: one credit
  r = h.send(f);
  EXPECT_TRUE(r.resend);
  EXPECT_TRUE(r.injection_ok);
  EXPECT_FALSE(h.transport().next(f).injection_ok);  // the credit is used up
  h.ack(f, h.control(f, PacketType::ack, 1));  // the rejected packet acknowledged: unlimited again
  r = h.transport().next(f);
  EXPECT_EQ(r.psn, 2u);
  EXPECT_FALSE(r.resend);
  EXPECT_TRUE(r.injection_ok);
}

TEST(Transport, DctcpWindowCapsWhatAFlowSendsAndAcksCarryTheEcho) {
  NicConfig c = config_for(TransportKind::basic);
  c.cc = CongestionControlKind::dctcp;
  c.dctcp_config.mss = 1000;
  c.dctcp_config.initial_window = 2000;
  TransportHarness h(c);
  ASSERT_NE(h.transport().congestion_control(), nullptr);
  EXPECT_TRUE(h.transport().ecn_capable());
  Flow& f = h.add_flow(4);
  EXPECT_EQ(h.send(f).kind, SendChoice::ready);
  EXPECT_EQ(h.send(f).kind, SendChoice::ready);
  EXPECT_EQ(h.send(f).kind, SendChoice::blocked);  // two packets fill the window
  h.data(f, 0);
  Packet* a = h.pop_control();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->echo_rx_bytes, 1000u);
  EXPECT_EQ(a->echo_ce_bytes, 0u);
  h.ack(f, a);
  const Dctcp* w = h.transport().congestion_control()->dctcp(f);
  ASSERT_NE(w, nullptr);
  EXPECT_GT(w->window(), 2000u);  // slow start: grows by what was acknowledged
  EXPECT_EQ(h.send(f).kind, SendChoice::ready);
}

}  // namespace
}  // namespace netasic
