// Exact timing of links and of the switch pipeline, on a two-host, one-switch network.
//
// Pipeline (docs/architecture.md): a packet's head reaches the switch after the link's propagation; the
// ingress stage ends on the first switch clock edge at or after head + ingress latency; the grant and
// crossbar take the rest of switch.latency_ns (egress ready on a clock edge); transmission then starts
// (cut-through). A flow completes when the tail of its last packet reaches the destination NIC.
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tlm/model/link.h"
#include "verification/common/run_helpers.h"

namespace netasic {
namespace {

using test::run;
using test::scenario;
using test::write_temp;

constexpr double kNs = 1000.0;  // ps per ns

// Two hosts (0, 1) on switch node 2; host links at `rate0` and `rate1`, 1000 ns propagation.
std::string two_host_topology(const std::string& rate0, const std::string& rate1) {
  return write_temp("two_hosts_" + rate0 + rate1 + ".txt",
                    "3 1 2\n2\n0 2 " + rate0 + " 1000ns 0\n1 2 " + rate1 + " 1000ns 0\n");
}

Ps on_clock_ns(double ps) {  // 1 GHz switch clock
  return static_cast<Ps>((static_cast<std::uint64_t>(ps) + 999) / 1000 * 1000);
}

Ps fct_of_single_flow(std::initializer_list<std::string> extra, const std::string& topo) {
  Scenario s = scenario({"topology.type=file", "topology.file=" + topo, "workload.type=incast",
                         "workload.incast.senders=1", "workload.incast.destination=1"});
  for (const auto& a : extra) s.set_assignment(a);
  auto sim = run(s);
  const Flow& f = sim->flows().flows().at(0);
  EXPECT_TRUE(f.done());
  EXPECT_EQ(f.src, 0u);
  return f.finish - f.start;
}

TEST(LinkTiming, OnePacketIsSerializationPlusPropagationPlusSwitchLatency) {
  // 1000 B payload + 64 B header + 20 B wire overhead = 1084 B at 100 Gb/s = 86.72 ns.
  const Ps fct = fct_of_single_flow({"workload.size_bytes=1000"}, two_host_topology("100Gbps", "100Gbps"));
  EXPECT_EQ(fct, static_cast<Ps>((1000 + 350 + 1000) * kNs + 86720));
}

TEST(LinkTiming, BackToBackPacketsFollowTheLinkAndTheSwitchClock) {
  // 5000 B: packets of 4096 and 904 B payload: 4180 B (334.4 ns) and 988 B (79.04 ns) on the wire.
  const Ps fct = fct_of_single_flow({"workload.size_bytes=5000"}, two_host_topology("100Gbps", "100Gbps"));
  const double ser1 = 334400, ser2 = 79040;
  const Ps p1_out = on_clock_ns(on_clock_ns(1000 * kNs + 100 * kNs) + 250 * kNs);  // 1350 ns
  const Ps p1_free = p1_out + static_cast<Ps>(ser1);
  const Ps p2_head = static_cast<Ps>(ser1 + 1000 * kNs);
  const Ps p2_ready = on_clock_ns(on_clock_ns(p2_head + 100 * kNs) + 250 * kNs);
  const Ps p2_out = std::max(p2_ready, p1_free);
  EXPECT_EQ(fct, p2_out + static_cast<Ps>(1000 * kNs + ser2));
}

TEST(LinkTiming, SlowerEgressLinkSerializesAtItsOwnRate) {
  // 1084 B at 50 Gb/s = 173.44 ns on the last link.
  const Ps fct = fct_of_single_flow({"workload.size_bytes=1000"}, two_host_topology("100Gbps", "50Gbps"));
  EXPECT_EQ(fct, static_cast<Ps>((1000 + 350 + 1000) * kNs + 173440));
}

TEST(LinkTiming, FasterEgressWaitsSoTheTailCannotOverrun) {
  // In 25 Gb/s, out 100 Gb/s: cut-through may not start before tail_in - ser_out.
  // Tail in at 1000 + 346.88 ns; ser_out 86.72 ns: start >= 1260.16 ns, but the pipeline gives 1350 ns.
  // With a 4096 B payload: tail in 1000 + 1337.6 ns; ser_out 334.4 ns: start at 2003.2 ns.
  const Ps fct = fct_of_single_flow({"workload.size_bytes=4096"}, two_host_topology("25Gbps", "100Gbps"));
  EXPECT_EQ(fct, static_cast<Ps>(1000 * kNs + 1337600 - 334400 + 1000 * kNs + 334400));
}

// Head in to head out of the switch at zero load: FCT minus both propagations and one serialization.
TEST(SwitchLatency, DefaultZeroLoadPortToPortLatencyIs350ns) {
  const Ps fct = fct_of_single_flow({"workload.size_bytes=1000"}, two_host_topology("100Gbps", "100Gbps"));
  EXPECT_EQ(fct - static_cast<Ps>(2000 * kNs + 86720), static_cast<Ps>(350 * kNs));
}

TEST(SwitchLatency, ConfiguredLatencyOf500ns) {
  const Ps fct = fct_of_single_flow({"workload.size_bytes=1000", "switch.latency_ns=500"},
                                    two_host_topology("100Gbps", "100Gbps"));
  EXPECT_EQ(fct - static_cast<Ps>(2000 * kNs + 86720), static_cast<Ps>(500 * kNs));
}

TEST(Credits, IncastNeverOverflowsAnInputBufferAndDeliversEveryByteOnce) {
  const std::uint32_t buffer = 16384;
  auto sim = run(scenario({"topology.type=leaf_spine", "topology.leaf_spine.leaves=4", "topology.leaf_spine.spines=2",
                           "topology.leaf_spine.hosts_per_leaf=4", "workload.type=incast", "workload.incast.senders=12",
                           "workload.size_bytes=262144", "switch.input_buffer_bytes=" + std::to_string(buffer)}));
  ASSERT_TRUE(sim->all_flows_completed());
  std::uint64_t fullest = 0;
  for (const auto& sw : sim->switches())
    for (std::uint16_t p = 0; p < sw->radix(); ++p) {
      EXPECT_LE(sw->max_input_fill(p, 1), buffer) << sw->name() << " port " << p;
      fullest = std::max(fullest, sw->max_input_fill(p, 1));
    }
  // The incast backs data up to the senders: some input buffer must have come within a packet of full.
  EXPECT_GE(fullest, buffer - 4160);
  const auto j = sim->summary();
  EXPECT_EQ(j["bytes"]["injected"], j["bytes"]["delivered"]);
  EXPECT_EQ(j["bytes"]["delivered"].get<std::uint64_t>(), 12u * 262144u);
  EXPECT_EQ(j["packets"]["dropped"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["packets"]["duplicates"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["packets"]["injected"], j["packets"]["delivered"]);
}

// One 40,000-byte flow of 1,000-byte packets from host 0 to host 1, into the switch at 100 Gb/s and out at
// 10 Gb/s, with the switch's queues set by `keys`. Once the first packet is out, the slow link sends back to
// back, so the flow ends at (1000 + 350) ns + 40 serializations of 1084 B at 10 Gb/s (867.2 ns) + 1000 ns,
// however the queues are sized, as long as nothing is lost, repeated or reordered (one path: only the switch
// could reorder).
std::unique_ptr<Simulation> run_through_a_slow_output(std::initializer_list<std::string> keys) {
  Scenario s = scenario({"topology.type=file", "topology.file=" + two_host_topology("100Gbps", "10Gbps"),
                         "workload.type=incast", "workload.incast.senders=1", "workload.incast.destination=1",
                         "workload.size_bytes=40000", "nic.mtu_bytes=1000", "switch.egress_queue_bytes=1048576"});
  for (const auto& k : keys) s.set_assignment(k);
  auto sim = run(s);
  if (!sim->all_flows_completed()) {
    ADD_FAILURE() << "the flow did not complete";
    return sim;
  }
  const Flow& f = sim->flows().flows().at(0);
  EXPECT_EQ(f.finish - f.start, static_cast<Ps>((1000 + 350 + 1000) * kNs + 40 * 867200));
  const auto j = sim->summary();
  EXPECT_EQ(j["bytes"]["delivered"].get<std::uint64_t>(), 40000u);
  EXPECT_EQ(j["packets"]["duplicates"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["packets"]["out_of_order"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["packets"]["injected"], j["packets"]["delivered"]);
  return sim;
}

// An egress queue's ring starts small and grows as the queue fills, to egress_queue_packets at most (20 here: 8,
// 16, then 20), keeping its packets in order across each growth while the port drains it.
TEST(EgressQueue, ARingGrowsToTheDescriptorLimitAndKeepsItsPacketsInOrder) {
  auto sim = run_through_a_slow_output({"switch.egress_queue_packets=20"});
  const auto& sw = sim->switches().at(0);
  EXPECT_EQ(sw->egress_ring_capacity(1, 1), 20u);  // the data queue toward host 1 filled up
  EXPECT_EQ(sw->egress_ring_capacity(1, 2), 8u);   // a class with no traffic kept its first ring
}

// A VOQ keeps its packets in order however long it grows: its entries sit three to a block, the blocks come from
// the switch's free list (two blocks for this 2-port switch, then 64 more when that runs out). With two egress
// descriptors and a 1 MiB input buffer, most of the 40 packets wait in the VOQ.
TEST(Voq, ALongVoqKeepsItsPacketsInOrderAcrossItsBlocks) {
  auto sim = run_through_a_slow_output({"switch.egress_queue_packets=2", "switch.input_buffer_bytes=1048576"});
  // The output's backlog (VOQs plus at most two egress packets) reached 20 packets of 1,084 B: its VOQ held 18
  // or more, six blocks or more.
  EXPECT_GE(sim->switches().at(0)->max_backlog(1), 20u * 1084u);
}

// Two classes share an output round-robin, one packet each in turn. Hosts 0 and 1 each send 400,000 B to host
// 2 through one switch, in traffic classes 0 and 1 (data egress queues 1 and 2). The output is busy from the
// first packet's departure ((1000 + 350) ns) to the last one's: 2 x (97 x 4,180 + 2,772) B on the wire at
// 100 Gb/s, 65,317.12 ns, then 1000 ns to host 2. Taking turns, the flows end within one packet's
// serialization (4,180 B: 334.4 ns) of each other; serving the lower queue first would end flow 0 near half
// time.
TEST(EgressQueue, DataClassesShareAnOutputRoundRobin) {
  const std::string topo = write_temp("three_hosts.txt",
                                      "4 1 3\n3\n0 3 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n2 3 100Gbps 1000ns 0\n");
  const std::string flows = write_temp("two_classes.txt", "2\n0 2 0 100 400000 0\n1 2 1 100 400000 0\n");
  auto sim = run(scenario({"topology.type=file", "topology.file=" + topo, "workload.type=file", "workload.file=" + flows}));
  ASSERT_TRUE(sim->all_flows_completed());
  const auto& f = sim->flows().flows();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f.at(0).tclass, 0u);
  EXPECT_EQ(f.at(1).tclass, 1u);
  const Ps last = std::max(f.at(0).finish, f.at(1).finish);
  EXPECT_EQ(last, static_cast<Ps>((1000 + 350 + 1000) * kNs + 65317120));
  const Ps gap = f.at(0).finish > f.at(1).finish ? f.at(0).finish - f.at(1).finish : f.at(1).finish - f.at(0).finish;
  EXPECT_LE(gap, static_cast<Ps>(334400));
}

// A link hands each packet to whatever its `out` socket is bound to. The model's own ports take it as a
// direct call; any other packet-protocol target gets b_transport with a generic payload carrying the packet
// in its PacketExtension. Both see the same packet and the same delay (transmission offset plus
// propagation; from sc_time_stamp() = 0 here, where the fabric's time is 0 too).
struct Received {
  Packet* packet = nullptr;
  Ps delay = 0;
  int calls = 0;
};
class PlainTarget : public PacketFwIf {  // a user's block: nothing but the TLM interface
 public:
  Received got;
  tlm::tlm_command command = tlm::TLM_READ_COMMAND;
  unsigned char* data = reinterpret_cast<unsigned char*>(this);
  unsigned length = 1;
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) override {
    got = Received{packet_of(payload), delay.value(), got.calls + 1};
    command = payload.get_command();
    data = payload.get_data_ptr();
    length = payload.get_data_length();
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_COMPLETED;
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};
class ModelPort {  // a model component with a PortTarget, as switches and NICs have
 public:
  explicit ModelPort(Fabric& fabric) : fabric_(fabric) {}
  Received got;
  std::uint64_t state = 0;
  Fabric& fabric_;
  void receive(std::uint16_t port, Packet* p, Ps delay) {
    EXPECT_EQ(port, 3);
    got = Received{p, delay, got.calls + 1};
  }
  const void* rx_hint(std::uint16_t) const { return &state; }
};

TEST(LinkTiming, ALinkDeliversToAnyTlmTargetAndToModelPortsAlike) {
  Fabric fabric("fabric", 0);
  LinkConfig lc;
  lc.prop_ps = 700 * 1000;
  lc.vc_credit_bytes = {65536, 65536};
  Link to_user("to_user", fabric, lc, 1, 0), to_model("to_model", fabric, lc, 1, 1);
  PlainTarget user;
  ModelPort model(fabric);
  PortTarget<ModelPort> model_port(&model, 3);
  struct Ends : sc_core::sc_module {  // sockets live in a module
    TargetSocket user_in{"user_in"}, model_in{"model_in"};
    InitiatorSocket a{"a"}, b{"b"};
    NoBackwardPath bw;
    explicit Ends(const sc_core::sc_module_name& n) : sc_core::sc_module(n) {
      a.bind(bw);
      b.bind(bw);
    }
  } ends("ends");
  ends.user_in.bind(user);
  ends.model_in.bind(model_port);
  to_user.out.bind(ends.user_in);
  to_model.out.bind(ends.model_in);
  ends.a.bind(to_user.in);
  ends.b.bind(to_model.in);
  auto& a = ends.a;
  auto& b = ends.b;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // elaboration: bindings complete

  // Only PortTarget offers the direct call, with its owner's state as the prefetch hint.
  ForeignTarget unused;
  EXPECT_EQ(resolve_receiver(&model_port, unused, fabric).hint, &model.state);
  EXPECT_EQ(resolve_receiver(&user, unused, fabric).hint, nullptr);

  Packet p1, p2;
  p1.size_bytes = p2.size_bytes = 1000;
  PacketPayload t1, t2;
  sc_core::sc_time d1 = sc_core::sc_time::from_value(5000), d2 = sc_core::sc_time::from_value(5000);
  a->b_transport(t1.with(&p1), d1);
  b->b_transport(t2.with(&p2), d2);
  EXPECT_EQ(t1.payload().get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(t2.payload().get_response_status(), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(user.got.calls, 1);
  EXPECT_EQ(model.got.calls, 1);
  EXPECT_EQ(user.got.packet, &p1);
  EXPECT_EQ(model.got.packet, &p2);
  EXPECT_EQ(user.got.delay, 5000u + 700u * 1000u);
  EXPECT_EQ(model.got.delay, user.got.delay);
  EXPECT_EQ(p1.hops, 1u);
  EXPECT_EQ(p2.hops, 1u);
  // The generic payload's own attributes mean what the base protocol says: a packet with no byte contents
  // is an ignore command with no data, and the packet's pointer is nowhere in them.
  EXPECT_EQ(user.command, tlm::TLM_IGNORE_COMMAND);
  EXPECT_EQ(user.data, nullptr);
  EXPECT_EQ(user.length, 0u);
}

// A sender short of credit is woken when the returns in flight, or those still to come, add up to what it
// lacks: one wake-up at that return's arrival, none for the returns before it. The link's receiver frees
// its buffer in pieces here; the sender checks credit from scripted events and again when woken.
struct CreditScript : EventTarget {
  std::vector<std::function<void()>> steps;  // event kind k runs steps[k]
  void on_event(std::uint32_t kind, std::uint64_t) override { steps.at(kind)(); }
};
struct WakeLog : LinkSender {
  Fabric& fabric;
  std::vector<Ps> at;
  std::function<void()> retry;  // what the sender checks again when woken
  explicit WakeLog(Fabric& f) : fabric(f) {}
  void on_credit(std::uint16_t) override {
    at.push_back(fabric.now());
    if (retry) retry();
  }
};
struct CreditBench {
  Fabric fabric{"fabric", 0};
  Link link;
  PlainTarget sink;
  WakeLog sender{fabric};
  CreditScript script;
  struct Ends : sc_core::sc_module {
    TargetSocket in{"in"};
    InitiatorSocket to_link{"to_link"};
    NoBackwardPath bw;
    explicit Ends(const sc_core::sc_module_name& n) : sc_core::sc_module(n) { to_link.bind(bw); }
  } ends{"ends"};
  static LinkConfig config() {
    LinkConfig lc;
    lc.prop_ps = 500 * kPsPerNs;
    lc.vc_credit_bytes = {8192, 8192, 8192};
    return lc;
  }
  CreditBench() : link("link", fabric, config(), 1, 0) {
    ends.in.bind(sink);
    link.out.bind(ends.in);
    ends.to_link.bind(link.in);
    link.set_sender(&sender, 0);
  }
  // Step k at `ns`.
  void at_ns(std::uint32_t ns, std::function<void()> step) {
    script.steps.push_back(std::move(step));
    fabric.schedule(ns * kPsPerNs, &script, static_cast<std::uint32_t>(script.steps.size() - 1));
  }
  std::vector<Ps> run() {
    sc_core::sc_start();
    return sender.at;
  }
};
TEST(Credits, ASenderWakesOnceTheReturnsCoverWhatItLacks) {
  CreditBench b;
  std::vector<bool> ok;
  b.at_ns(0, [&] {
    b.link.take_credits(1, 8192);
    ok.push_back(b.link.has_credit(1, 4096));  // nothing in flight: it waits for returns still to come
  });
  // The receiver frees 1 KiB at 100, 200, 300 and 400 ns; each reaches the sender 500 ns later.
  for (std::uint32_t ns : {100, 200, 300, 400}) b.at_ns(ns, [&] { b.link.return_credits(1, 1024); });
  b.sender.retry = [&] { ok.push_back(b.link.has_credit(1, 4096)); };
  EXPECT_EQ(b.run(), std::vector<Ps>{900 * kPsPerNs});
  EXPECT_EQ(ok, (std::vector<bool>{false, true}));
  EXPECT_EQ(b.link.credits(1), 4096);
}

TEST(Credits, ReturnsInFlightWakeTheSenderAtTheOneThatCoversItsNeed) {
  CreditBench b;
  b.at_ns(0, [&] { b.link.take_credits(1, 8192); });
  b.at_ns(100, [&] { b.link.return_credits(1, 1024); });  // arrives at 600 ns
  b.at_ns(150, [&] { b.link.return_credits(1, 1024); });  // 650 ns
  b.at_ns(200, [&] { b.link.return_credits(1, 4096); });  // 700 ns
  b.at_ns(250, [&] { EXPECT_FALSE(b.link.has_credit(1, 4096)); });  // covered at 700 ns: 6 KiB by then
  // A smaller need covered sooner moves the wake-up earlier (to 600 ns); the one at 700 ns comes once only,
  // for the 4 KiB the sender lacks again at 600 ns.
  b.at_ns(260, [&] { EXPECT_FALSE(b.link.has_credit(1, 512)); });
  int retries = 0;
  b.sender.retry = [&] {
    if (++retries == 1) EXPECT_FALSE(b.link.has_credit(1, 4096));
    else EXPECT_TRUE(b.link.has_credit(1, 4096));
  };
  EXPECT_EQ(b.run(), (std::vector<Ps>{600 * kPsPerNs, 700 * kPsPerNs}));
  EXPECT_EQ(b.link.credits(1), 6144);
}

TEST(Credits, ASenderShortOnTwoVcsWakesForTheFirstReturnThatCoversEither) {
  CreditBench b;
  b.at_ns(0, [&] {
    b.link.take_credits(1, 8192);
    b.link.take_credits(2, 8192);
    EXPECT_FALSE(b.link.has_credit(1, 4096));
    EXPECT_FALSE(b.link.has_credit(2, 512));
  });
  b.at_ns(100, [&] { b.link.return_credits(1, 256); });  // 600 ns: covers neither
  b.at_ns(200, [&] { b.link.return_credits(2, 512); });  // 700 ns: covers VC 2
  b.at_ns(300, [&] { b.link.return_credits(1, 4096); });
  EXPECT_EQ(b.run(), std::vector<Ps>{700 * kPsPerNs});
  EXPECT_EQ(b.link.credits(2), 512);
}

}  // namespace
}  // namespace netasic
