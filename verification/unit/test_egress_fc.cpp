// EgressFc (tlm/model/egress_fc*) on its own, without a network: queue mapping, Order Mark matching,
// PAUSE / RESUME bookkeeping, deficit round-robin and PFC hysteresis, driven packet by packet.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tlm/common/error.h"
#include "tlm/model/egress_fc.h"

namespace netasic {
namespace {

struct Bench {
  PacketPool pool;
  Rng rng{1, 2};
  std::vector<FcFrame> out;

  Packet* data(std::uint32_t fid, std::uint32_t size, std::uint16_t in_port = 1, std::uint32_t psn = 0) {
    Packet* p = pool.get();
    p->type = PacketType::data;
    p->flow_hash = fid;
    p->flow = fid;
    p->size_bytes = size;
    p->in_size = size;
    p->in_port = in_port;
    p->psn = psn;
    return p;
  }
  Packet* frame(bool pause, std::uint32_t fid, bool pfc = false) {
    Packet* f = pool.get();
    f->type = pause ? PacketType::pause : PacketType::resume;
    f->fc_fid = fid;
    f->fc_pfc = pfc ? 1 : 0;
    return f;
  }
  // Sends everything port o can send now; returns (flow, psn) in order.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> drain(EgressFc& fc, std::uint16_t o) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> sent;
    while (fc.peek(o, 0)) {
      Packet* p = fc.pop(o, 0, out);
      sent.emplace_back(p->flow_hash, p->psn);
      pool.put(p);
    }
    return sent;
  }
};

EgressFcConfig flowsail(unsigned queues) {
  EgressFcConfig c;
  c.mode = FcMode::flowsail;
  c.queues = queues;
  c.q_low_bytes = 1000000;  // no congestion marks unless a test asks for them
  c.q_high_bytes = 1000000;
  return c;
}

TEST(EgressFc, FlowSailIsolatesAPausedFlowWithoutReorderingIt) {
  Bench b;
  const auto fc = make_egress_fc(flowsail(2), 2, b.pool, b.rng);  // one normal queue and rsvQ
  // Flows 7 and 9 share the normal queue; then PAUSE(7) arrives from downstream.
  fc->enqueue(0, b.data(7, 1000, 1, 0), 0, b.out);
  fc->enqueue(0, b.data(9, 1000, 1, 0), 0, b.out);
  fc->enqueue(0, b.data(7, 1000, 1, 1), 0, b.out);
  Packet* pause = b.frame(true, 7);
  fc->control(0, pause, 0);
  b.pool.put(pause);
  EXPECT_EQ(fc->counters().isolations, 1u);
  EXPECT_EQ(fc->counters().order_marks, 1u);
  // Later packets of 7 go to rsvQ; the original queue is stopped too (7 had packets there).
  fc->enqueue(0, b.data(7, 1000, 1, 2), 0, b.out);
  fc->enqueue(0, b.data(9, 1000, 1, 1), 0, b.out);
  EXPECT_EQ(fc->peek(0, 0), nullptr) << "both queues stopped until RESUME(7)";
  Packet* resume = b.frame(false, 7);
  fc->control(0, resume, 0);
  b.pool.put(resume);
  const auto sent = b.drain(*fc, 0);
  ASSERT_EQ(sent.size(), 5u);
  std::uint32_t next7 = 0, next9 = 0;
  for (const auto& [flow, psn] : sent) {
    if (flow == 7) EXPECT_EQ(psn, next7++) << "flow 7 reordered";
    else EXPECT_EQ(psn, next9++) << "flow 9 reordered";
  }
  EXPECT_EQ(fc->used(), 0u);
}

TEST(EgressFc, RsvQueueWaitsForItsOrderMark) {
  Bench b;
  const auto fc = make_egress_fc(flowsail(2), 2, b.pool, b.rng);
  // Flow 9 leaves first, so the round-robin turn is rsvQ's when the queues restart.
  fc->enqueue(0, b.data(9, 1000, 1, 0), 0, b.out);
  fc->enqueue(0, b.data(7, 1000, 1, 0), 0, b.out);
  ASSERT_NE(fc->peek(0, 0), nullptr);
  Packet* first = fc->pop(0, 0, b.out);
  EXPECT_EQ(first->flow_hash, 9u);
  b.pool.put(first);
  Packet* pause = b.frame(true, 7);
  fc->control(0, pause, 0);
  b.pool.put(pause);
  fc->enqueue(0, b.data(7, 1000, 1, 1), 0, b.out);  // into rsvQ, behind its mark
  Packet* resume = b.frame(false, 7);
  fc->control(0, resume, 0);
  b.pool.put(resume);
  // rsvQ has the turn, but its head is the mark whose partner is still behind PSN 0 in the original queue.
  const auto sent = b.drain(*fc, 0);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].second, 0u);
  EXPECT_EQ(sent[1].second, 1u);
}

TEST(EgressFc, EveryPauseGetsItsResume) {
  Bench b;
  EgressFcConfig c = flowsail(4);
  c.q_low_bytes = 2000;
  c.q_high_bytes = 4000;
  const auto fc = make_egress_fc(c, 2, b.pool, b.rng);
  // Two flows from different inputs push a queue past Qh: the arrivals are marked, PAUSEs go upstream.
  for (std::uint32_t k = 0; k < 6; ++k) fc->enqueue(0, b.data(7, 1000, 1, k), 0, b.out);
  std::size_t pauses = 0;
  for (const FcFrame& f : b.out) pauses += f.pause;
  EXPECT_GE(pauses, 1u);
  EXPECT_EQ(b.out.front().port, 1u) << "a PAUSE goes to the input the packet came from";
  b.out.clear();
  b.drain(*fc, 0);
  std::size_t resumes = 0;
  for (const FcFrame& f : b.out) resumes += !f.pause;
  EXPECT_EQ(resumes, pauses);
  EXPECT_EQ(fc->counters().pause_frames, fc->counters().resume_frames);
}

TEST(EgressFc, DeficitRoundRobinSharesBytesNotPackets) {
  Bench b;
  EgressFcConfig c;
  c.mode = FcMode::ideal;  // one queue per flow
  c.drr = true;
  c.quantum_bytes = 1500;
  c.q_low_bytes = 1u << 30;
  const auto fc = make_egress_fc(c, 1, b.pool, b.rng);
  for (std::uint32_t k = 0; k < 40; ++k) fc->enqueue(0, b.data(1, 1500, 1, k), 0, b.out);   // large packets
  for (std::uint32_t k = 0; k < 200; ++k) fc->enqueue(0, b.data(2, 300, 1, k), 0, b.out);  // small packets
  std::uint64_t bytes1 = 0, bytes2 = 0;
  for (int n = 0; n < 60; ++n) {
    Packet* p = fc->peek(0, 0) ? fc->pop(0, 0, b.out) : nullptr;
    ASSERT_NE(p, nullptr);
    (p->flow_hash == 1 ? bytes1 : bytes2) += p->size_bytes;
    b.pool.put(p);
  }
  // Equal bytes within one quantum, although flow 2 sends five packets for each of flow 1's.
  EXPECT_NEAR(static_cast<double>(bytes1), static_cast<double>(bytes2), 1500.0);
  b.drain(*fc, 0);
}

TEST(EgressFc, PfcPausesAboveXoffAndResumesAtXon) {
  Bench b;
  EgressFcConfig c;
  c.mode = FcMode::pfc;
  c.queues = 2;
  c.pfc_xoff_bytes = 5000;
  c.pfc_xon_bytes = 2000;
  const auto fc = make_egress_fc(c, 2, b.pool, b.rng);
  for (std::uint32_t k = 0; k < 6; ++k) {
    Packet* p = b.data(3, 1000, 1, k);
    fc->on_arrival(p, b.out);
    fc->enqueue(0, p, 0, b.out);
  }
  ASSERT_EQ(b.out.size(), 1u) << "one PFC PAUSE when input 1 passes 5000 bytes";
  EXPECT_TRUE(b.out[0].pause);
  EXPECT_TRUE(b.out[0].pfc);
  b.out.clear();
  for (int k = 0; k < 3; ++k) {
    ASSERT_NE(fc->peek(0, 0), nullptr);
    b.pool.put(fc->pop(0, 0, b.out));
  }
  EXPECT_TRUE(b.out.empty()) << "3000 bytes left: above XON";
  ASSERT_NE(fc->peek(0, 0), nullptr);
  b.pool.put(fc->pop(0, 0, b.out));
  ASSERT_EQ(b.out.size(), 1u);
  EXPECT_FALSE(b.out[0].pause);
  b.out.clear();
  b.drain(*fc, 0);
}

TEST(EgressFc, PfcPauseStopsTheClassUpstream) {
  Bench b;
  EgressFcConfig c;
  c.mode = FcMode::pfc;
  c.queues = 2;
  const auto fc = make_egress_fc(c, 2, b.pool, b.rng);
  Packet* p = b.data(3, 1000);  // from input 1
  fc->on_arrival(p, b.out);
  fc->enqueue(0, p, 0, b.out);
  Packet* pause = b.frame(true, 0, true);
  fc->control(0, pause, 0);
  b.pool.put(pause);
  EXPECT_EQ(fc->peek(0, 0), nullptr);
  Packet* resume = b.frame(false, 0, true);
  fc->control(0, resume, 0);
  b.pool.put(resume);
  EXPECT_EQ(b.drain(*fc, 0).size(), 1u);
}

TEST(EgressFc, RejectsBadConfigurations) {
  Bench b;
  EgressFcConfig c = flowsail(6);
  c.groups = 4;
  EXPECT_THROW(make_egress_fc(c, 1, b.pool, b.rng), InputError);
  c = flowsail(1);
  EXPECT_THROW(make_egress_fc(c, 1, b.pool, b.rng), InputError);
  c = flowsail(8);
  c.q_low_bytes = 9000;
  c.q_high_bytes = 8000;
  EXPECT_THROW(make_egress_fc(c, 1, b.pool, b.rng), InputError);
}

TEST(EgressFc, BfcPausedFlowStopsOnlyItsQueue) {
  Bench b;
  EgressFcConfig c;
  c.mode = FcMode::bfc;
  c.queues = 2;
  c.q_low_bytes = 1000000;
  const auto fc = make_egress_fc(c, 2, b.pool, b.rng);
  fc->enqueue(0, b.data(1, 1000, 1, 0), 0, b.out);  // a new flow takes an empty queue of its own
  fc->enqueue(0, b.data(2, 1000, 1, 0), 0, b.out);
  Packet* pause = b.frame(true, 1);
  fc->control(0, pause, 0);
  b.pool.put(pause);
  const auto first = b.drain(*fc, 0);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].first, 2u) << "flow 1's queue is stopped, flow 2's is not";
  Packet* resume = b.frame(false, 1);
  fc->control(0, resume, 0);
  b.pool.put(resume);
  EXPECT_EQ(b.drain(*fc, 0).size(), 1u);
  EXPECT_EQ(fc->used(), 0u);
}

TEST(EgressFc, IdealPausesOnlyTheFlowAboveItsThreshold) {
  Bench b;
  EgressFcConfig c;
  c.mode = FcMode::ideal;
  c.q_low_bytes = 2500;
  const auto fc = make_egress_fc(c, 2, b.pool, b.rng);
  for (std::uint32_t k = 0; k < 4; ++k) fc->enqueue(0, b.data(1, 1000, 1, k), 0, b.out);
  for (std::uint32_t k = 0; k < 2; ++k) fc->enqueue(0, b.data(2, 1000, 1, k), 0, b.out);
  ASSERT_EQ(b.out.size(), 1u) << "one PAUSE, for the flow whose own queue passed the threshold";
  EXPECT_TRUE(b.out[0].pause);
  EXPECT_EQ(b.out[0].fid, 1u);
  EXPECT_EQ(fc->counters().marked_packets, 2u);
  b.out.clear();
  b.drain(*fc, 0);
  ASSERT_EQ(b.out.size(), 1u);
  EXPECT_FALSE(b.out[0].pause);
  EXPECT_EQ(b.out[0].fid, 1u);
}

TEST(EgressFc, RegistryBuildsEverySchemeByName) {
  Bench b;
  const auto names = fc_mode_names();
  ASSERT_EQ(names.size(), 5u);
  for (const std::string& name : names) {
    const FcMode m = parse_fc_mode(name);
    EXPECT_EQ(to_string(m), name);
    EgressFcConfig c;
    c.mode = m;
    if (m == FcMode::none) {
      EXPECT_THROW(make_egress_fc(c, 2, b.pool, b.rng), ModelError) << "none has no scheme";
      continue;
    }
    const auto fc = make_egress_fc(c, 2, b.pool, b.rng);
    ASSERT_NE(fc, nullptr);
    EXPECT_EQ(fc->config().mode, m);
    // Every scheme carries a packet through.
    Packet* p = b.data(5, 1000);
    fc->on_arrival(p, b.out);
    fc->enqueue(1, p, 0, b.out);
    EXPECT_EQ(fc->packets(1), 1u) << name;
    EXPECT_EQ(b.drain(*fc, 1).size(), 1u) << name;
    EXPECT_EQ(fc->used(), 0u) << name;
  }
  EXPECT_THROW(parse_fc_mode("xon"), InputError);
}

}  // namespace
}  // namespace netasic
