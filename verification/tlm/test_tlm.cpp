// Components outside the model on packet sockets: a foreign SC_THREAD sends packets into a link at times
// of its choosing, a foreign target receives them, and every delivery time is checked against a hand
// computation (docs/tlm.md, "Time").
//
// Hand rules (docs/architecture.md): a link's serialization is (size + overhead) x 8000 / rate ps; a packet
// whose transmission starts at s has its head at the far end at s + propagation. Through a switch at zero
// load with equal link rates, head-in to head-out is switch.latency_ns (350 ns) with both switch stages
// ending on 1 GHz clock edges.
#include <gtest/gtest.h>

#include <systemc>
#include <tlm>

#include <memory>
#include <vector>

#include "tlm/model/link.h"
#include "tlm/model/switch.h"

namespace netasic {
namespace {

constexpr Ps kNs = kPsPerNs;

// A sender that is not part of the model: in its own thread it waits, then calls b_transport on its
// packet socket with a delay of its choosing.
struct Send {
  sc_core::sc_time wait_before;
  std::uint32_t size;
  Ps delay;
};
struct ForeignSender : sc_core::sc_module {
  InitiatorSocket out{"out"};
  NoBackwardPath bw;
  std::vector<Send> schedule;
  std::vector<Packet> packets;
  std::vector<tlm::tlm_response_status> status;
  SC_HAS_PROCESS(ForeignSender);
  ForeignSender(const sc_core::sc_module_name& n, std::vector<Send> s)
      : sc_core::sc_module(n), schedule(std::move(s)), packets(schedule.size()) {
    out.bind(bw);
    SC_THREAD(run);
  }
  void run() {
    PacketPayload payload;
    for (std::size_t i = 0; i < schedule.size(); ++i) {
      wait(schedule[i].wait_before);
      Packet& p = packets[i];
      p.size_bytes = schedule[i].size;
      p.dst_host = 1;
      p.vc = 1;
      p.flow_hash = static_cast<std::uint32_t>(i);
      sc_core::sc_time d = sc_core::sc_time::from_value(schedule[i].delay);
      out->b_transport(payload.with(&p), d);
      status.push_back(payload.payload().get_response_status());
    }
  }
};

// A receiver that is not part of the model: records when each packet's head arrives (sc_time_stamp() plus
// the annotated delay) and the serialization the link reports.
struct Delivery {
  const Packet* packet;
  Ps head;
  Ps ser;
};
struct ForeignReceiver : sc_core::sc_module, PacketFwIf {
  TargetSocket in{"in"};
  std::vector<Delivery> got;
  explicit ForeignReceiver(const sc_core::sc_module_name& n) : sc_core::sc_module(n) { in.bind(*this); }
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
    const Packet* p = packet_of(payload);
    got.push_back({p, (sc_core::sc_time_stamp() + delay).value(), p ? p->ser_ps : 0});
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

LinkConfig link_config() {  // 100 Gb/s: 80 ps a byte; 20 B overhead; 500 ns
  LinkConfig lc;
  lc.rate_gbps = 100;
  lc.prop_ps = 500 * kNs;
  lc.overhead_bytes = 20;
  lc.vc_credit_bytes = {1 << 20, 1 << 20};
  return lc;
}

Ps ser_ps(std::uint32_t size) { return (size + 20) * 80; }

TEST(TlmTime, ForeignInitiatorAndTargetOnOneLink) {
  Fabric fabric("fabric", 1000 * kNs);
  Link link("link", fabric, link_config(), 1, 0);
  // 1 us: 1000 B now; 50 ns later 500 B starting 40 ns after that (the first ends at 1081.6 ns); at
  // 4050 ns 64 B, and 1500 B straight behind it (delay = the 64 B packet's 6.72 ns serialization).
  ForeignSender sender("sender", {{sc_core::sc_time(1, sc_core::SC_US), 1000, 0},
                                  {sc_core::sc_time(50, sc_core::SC_NS), 500, 40 * kNs},
                                  {sc_core::sc_time(3000, sc_core::SC_NS), 64, 0},
                                  {sc_core::SC_ZERO_TIME, 1500, ser_ps(64)}});
  ForeignReceiver receiver("receiver");
  sender.out.bind(link.in);
  link.out.bind(receiver.in);
  sc_core::sc_start(10, sc_core::SC_US);

  const Ps start[] = {1000 * kNs, 1090 * kNs, 4050 * kNs, 4050 * kNs + 6720};
  const std::uint32_t size[] = {1000, 500, 64, 1500};
  EXPECT_EQ(ser_ps(1000), 81600u);
  ASSERT_EQ(receiver.got.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(receiver.got[i].packet, &sender.packets[i]) << i;
    EXPECT_EQ(receiver.got[i].head, start[i] + 500 * kNs) << i;
    EXPECT_EQ(receiver.got[i].ser, ser_ps(size[i])) << i;
    EXPECT_EQ(sender.status.at(i), tlm::TLM_OK_RESPONSE) << i;
  }
  EXPECT_EQ(link.packets_sent(), 4u);
  EXPECT_EQ(link.busy_time(), ser_ps(1000) + ser_ps(500) + ser_ps(64) + ser_ps(1500));
  EXPECT_EQ(fabric.late_external(), 0u);
}

// A component in the middle: what link B hands it, it passes on at once into link C, with the delay it was
// given (the head arrives at B's end: C's transmission starts then). The model calls it from inside the
// fabric's own method, where the fabric's time may be ahead of SystemC's.
struct Forwarder : sc_core::sc_module, PacketFwIf {
  TargetSocket in{"in"};
  InitiatorSocket out{"out"};
  NoBackwardPath bw;
  explicit Forwarder(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {
    in.bind(*this);
    out.bind(bw);
  }
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
    out->b_transport(payload, delay);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

// A call into the model by another way than a socket (here a receiver's credit return) between enter and
// leave: the fabric's time is SystemC's, so the credit reaches the sender one propagation (500 ns) later.
struct CreditUser : sc_core::sc_module {
  Fabric& fabric;
  Link& link;
  std::vector<std::int64_t> seen;  // credits on VC 1 at 1.2 us and at 1.6 us
  Ps now_at_enter = 0;
  SC_HAS_PROCESS(CreditUser);
  CreditUser(const sc_core::sc_module_name& n, Fabric& f, Link& l) : sc_core::sc_module(n), fabric(f), link(l) {
    SC_THREAD(run);
  }
  void run() {
    wait(1, sc_core::SC_US);
    fabric.enter(sc_core::SC_ZERO_TIME);
    now_at_enter = fabric.now();
    link.take_credits(1, 1000);    // a sender commits 1000 B of the receiver's buffer
    link.return_credits(1, 1000);  // the receiver frees them at once
    fabric.leave();
    for (int at_ns : {200, 400}) {
      wait(at_ns, sc_core::SC_NS);
      fabric.enter(sc_core::SC_ZERO_TIME);
      seen.push_back(link.credits(1));
      fabric.leave();
    }
  }
};

TEST(TlmTime, AnExternalCallBringsTheFabricUpToSystemCTime) {
  Fabric fabric("fabric", 1000 * kNs);
  Link link("link", fabric, link_config(), 1, 0);
  ForeignSender sender("sender", {});
  ForeignReceiver receiver("receiver");
  sender.out.bind(link.in);
  link.out.bind(receiver.in);
  CreditUser user("user", fabric, link);
  sc_core::sc_start(10, sc_core::SC_US);
  EXPECT_EQ(user.now_at_enter, 1000 * kNs);
  ASSERT_EQ(user.seen.size(), 2u);
  EXPECT_EQ(user.seen[0], (1 << 20) - 1000);  // 1.2 us: still on its way back
  EXPECT_EQ(user.seen[1], 1 << 20);           // 1.6 us: arrived at 1.5 us
}

// Foreign sender -> link A -> switch port 0 -> port 1 -> link B -> foreign receiver (or, with `forward`,
// link B -> Forwarder -> link C -> foreign receiver). The switch's events run on the fabric's queue, which
// must wake at the SystemC times the foreign sender's packets give it.
struct Middle {
  Forwarder fwd{"fwd"};
  Link c;
  explicit Middle(Fabric& fabric) : c("c", fabric, link_config(), 1, 4) {}
};
struct SwitchBench {
  Fabric fabric;
  RoutingTable routing{{{RoutingTable::kHost, RoutingTable::kHost}}, {0, 0}, {0, 1}, {}};
  Link a, a_back, b, b_back;
  Switch sw;
  ForeignSender sender;
  ForeignReceiver receiver, back_sink;
  ForeignSender idle;  // drives the unused direction into port 1
  std::unique_ptr<Middle> middle;
  static SwitchConfig config() {
    SwitchConfig c;
    c.radix = 2;
    c.vc_buffer_bytes = {65536, 65536};
    return c;
  }
  SwitchBench(Ps quantum, std::vector<Send> schedule, bool forward = false)
      : fabric("fabric", quantum),
        a("a", fabric, link_config(), 1, 0),
        a_back("a_back", fabric, link_config(), 1, 1),
        b("b", fabric, link_config(), 1, 2),
        b_back("b_back", fabric, link_config(), 1, 3),
        sw("sw", fabric, config(), routing, 0, 1),
        sender("sender", std::move(schedule)),
        receiver("receiver"),
        back_sink("back_sink"),
        idle("idle", {}) {
    sender.out.bind(a.in);
    a.out.bind(*sw.in[0]);
    sw.out[0]->bind(a_back.in);
    a_back.out.bind(back_sink.in);
    idle.out.bind(b_back.in);
    b_back.out.bind(*sw.in[1]);
    sw.out[1]->bind(b.in);
    if (forward) {
      middle = std::make_unique<Middle>(fabric);
      b.out.bind(middle->fwd.in);
      middle->fwd.out.bind(middle->c.in);
      middle->c.out.bind(receiver.in);
    } else {
      b.out.bind(receiver.in);
    }
    sw.attach(0, &a, &a_back);
    sw.attach(1, &b_back, &b);
  }
};

TEST(TlmTime, ForeignInitiatorThroughASwitchInLockStep) {
  // 1000 B packets (81.6 ns on each link). Sent at 1 us; at 3 us with a 200 ns delay; at 13 us, and one
  // straight behind it (delay 81.6 ns).
  SwitchBench t(0, {{sc_core::sc_time(1, sc_core::SC_US), 1000, 0},
                    {sc_core::sc_time(2, sc_core::SC_US), 1000, 200 * kNs},
                    {sc_core::sc_time(10, sc_core::SC_US), 1000, 0},
                    {sc_core::SC_ZERO_TIME, 1000, ser_ps(1000)}});
  sc_core::sc_start(20, sc_core::SC_US);
  // Alone in the switch: start + 500 (link A) + 350 (switch) + 500 (link B).
  // The fourth: head at the switch 13581.6 ns; ingress ends on the edge at or after +100 ns: 13682;
  // egress ready on the edge at or after +250 ns: 13932 (the third's transmission ends at 13931.6);
  // head at the receiver 13932 + 500.
  const Ps head[] = {2350 * kNs, 4550 * kNs, 14350 * kNs, 14432 * kNs};
  ASSERT_EQ(t.receiver.got.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t.receiver.got[i].packet, &t.sender.packets[i]) << i;
    EXPECT_EQ(t.receiver.got[i].head, head[i]) << i;
    EXPECT_EQ(t.receiver.got[i].ser, ser_ps(1000)) << i;
  }
  EXPECT_EQ(t.fabric.late_external(), 0u);
}

// The quantum rule: the fabric may run up to one quantum ahead of SystemC. With a 1000 ns quantum, two
// packets sent back to back at 1 us wake the fabric at 1600 ns (the first one's ingress), and it runs on to
// the second one's transmit-done at 1931.6 ns. The first leaves the switch at 1850 ns, the second at
// 1932 ns (as in the lock-step test above). A third packet, sent at 1700 ns, annotated with a delay of at
// least one quantum is applied exactly.
std::vector<Send> two_then_one(Ps third_delay) {
  return {{sc_core::sc_time(1, sc_core::SC_US), 1000, 0},
          {sc_core::SC_ZERO_TIME, 1000, ser_ps(1000)},
          {sc_core::sc_time(700, sc_core::SC_NS), 1000, third_delay}};
}

TEST(TlmTime, ADelayOfOneQuantumIsAppliedExactly) {
  SwitchBench t(1000 * kNs, two_then_one(1000 * kNs));
  sc_core::sc_start(20, sc_core::SC_US);
  ASSERT_EQ(t.receiver.got.size(), 3u);
  EXPECT_EQ(t.receiver.got[0].head, 2350 * kNs);
  EXPECT_EQ(t.receiver.got[1].head, 2432 * kNs);
  EXPECT_EQ(t.receiver.got[2].head, 2700 * kNs + 1350 * kNs);
  EXPECT_EQ(t.fabric.late_external(), 0u);
}

// ... and one annotated with less, for a time the fabric has already run past (1700 ns < 1931.6 ns), is
// applied at the fabric's time, less than one quantum late, and counted: it starts at 1931.6 ns, reaches
// the switch at 2431.6 ns, ends ingress on the edge at 2532 ns and is ready at 2782 ns.
TEST(TlmTime, ADelayBelowTheQuantumMayBeLateByLessThanTheQuantum) {
  SwitchBench t(1000 * kNs, two_then_one(0));
  sc_core::sc_start(20, sc_core::SC_US);
  ASSERT_EQ(t.receiver.got.size(), 3u);
  EXPECT_EQ(t.receiver.got[0].head, 2350 * kNs);
  EXPECT_EQ(t.receiver.got[1].head, 2432 * kNs);
  EXPECT_EQ(t.receiver.got[2].head, 2782 * kNs + 500 * kNs);
  EXPECT_EQ(t.fabric.late_external(), 1u);
}

// The same packets in lock step (quantum 0): exact.
TEST(TlmTime, ADelayBelowTheQuantumIsExactInLockStep) {
  SwitchBench t(0, two_then_one(0));
  sc_core::sc_start(20, sc_core::SC_US);
  ASSERT_EQ(t.receiver.got.size(), 3u);
  EXPECT_EQ(t.receiver.got[0].head, 2350 * kNs);
  EXPECT_EQ(t.receiver.got[1].head, 2432 * kNs);
  EXPECT_EQ(t.receiver.got[2].head, 1700 * kNs + 1350 * kNs);
  EXPECT_EQ(t.fabric.late_external(), 0u);
}

// A foreign component the model calls (inside the fabric's method, up to a quantum ahead of SystemC) and
// that calls back into the model with the delay it was given: no time is lost or gained on the way, each
// packet arrives one link C propagation (500 ns) after it would have reached the receiver directly.
TEST(TlmTime, AComponentBetweenTwoLinksKeepsTheTiming) {
  SwitchBench t(1000 * kNs, two_then_one(1000 * kNs), true);
  sc_core::sc_start(20, sc_core::SC_US);
  ASSERT_EQ(t.receiver.got.size(), 3u);
  EXPECT_EQ(t.receiver.got[0].head, 2350 * kNs + 500 * kNs);
  EXPECT_EQ(t.receiver.got[1].head, 2432 * kNs + 500 * kNs);
  EXPECT_EQ(t.receiver.got[2].head, 4050 * kNs + 500 * kNs);
  EXPECT_EQ(t.middle->c.packets_sent(), 3u);
  EXPECT_EQ(t.fabric.late_external(), 0u);
}

}  // namespace
}  // namespace netasic
