// A Rosetta-like switch ASIC (see docs/architecture.md, "Switch pipeline"):
//   ingress parse + route lookup -> input buffer with virtual output queues (per output and VC)
//   -> request/grant arbitration per output (a grant needs egress-queue room and downstream credit)
//   -> row bus of the input, tile crossbar, column channel (busy-until resources, no events)
//   -> per-port egress queues (control strictly first, data classes round-robin) -> link.
// Zero-load port-to-port latency (head in to head out) is `latency_ps`; ingress takes `ingress_ps` of it.
// Events per packet-hop: one arrival and at most one transmit-done (only when something waits); credit
// returns cost an event only when the upstream sender is waiting for them.
#pragma once

#include <systemc>
#include <tlm>

#include "tlm/model/packet_ring.h"

#include <algorithm>
#include <array>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "tlm/common/rng.h"
#include "tlm/model/egress_fc.h"
#include "tlm/model/flow.h"
#include "tlm/model/flowcut.h"
#include "tlm/model/flowcut_engine.h"
#include "tlm/model/fabric.h"
#include "tlm/model/link.h"
#include "tlm/model/routing.h"
#include "tlm/model/routing_policy.h"
#include "tlm/model/tlm_ports.h"
#include "tlm/model/voq.h"

namespace netasic {

// The largest switch the model builds: current switch chips have 128-256 ports. Up to 64 ports an output's
// arbiter keeps one request bit per input in a word; above, one bit per group of 64 inputs, with the groups'
// words beside (Switch::wide_request_).
constexpr std::uint16_t kMaxSwitchRadix = 256;

struct SwitchConfig {
  std::uint16_t radix = 64;
  std::uint16_t ports_per_tile = 2;
  std::uint16_t tile_columns = 8;
  double clock_ghz = 1.0;
  Ps latency_ps = 350 * kPsPerNs;
  Ps ingress_ps = 100 * kPsPerNs;
  std::uint32_t egress_queues = 8;
  std::uint32_t egress_queue_bytes = 64 * 1024;
  std::uint32_t egress_queue_packets = 64;  // descriptors per egress queue
  double internal_gbps = 400;  // row bus / column channel bandwidth
  // switch.crossbar: tiled = row bus then column channel, the tile crossbar's buffer between them (a busy
  // column does not hold the row bus); single = one circuit from input to output holding both at once.
  bool tiled_crossbar = true;
  // switch.arbiter_pointer: per_vc = each output's round-robin keeps one pointer per VC; shared = one for all
  // VCs (the model before per_vc, kept to reproduce results made with it).
  bool arbiter_pointer_per_vc = true;
  RoutingPolicy policy = RoutingPolicy::ecmp;
  std::uint8_t vcs = 2;  // VC 0 carries control traffic; data uses 1..vcs-1
  bool lossless = true;
  std::vector<std::uint32_t> vc_buffer_bytes;  // input buffer per VC (credits advertised upstream)
  double ugal_bias_bytes = 0;                  // UGAL: extra backlog the non-minimal path must beat
  std::uint32_t max_packet_bytes = 4160;       // largest data packet (MTU + header): one egress slot
  const FlowcutParams* flowcut = nullptr;      // Flowcut in the switch (full_switch or ingress_only)
  FlowletTableConfig letflow_table{};
  FlowletTableFactory letflow_factory;         // empty: the C++ model (switch.flowlet_table.impl)
  Ps letflow_delta_ps = 50 * kPsPerUs;         // LetFlow checker period (flowlet timeout delta..2 delta)
  std::uint32_t control_queue_packets = 256;   // frames the switch itself generates, per output
  EgressFcConfig fc{};                         // hop-by-hop flow control (switch.flow_control)
  // ECN: an ECN-capable data packet leaving an output whose backlog (VOQs + egress queues) behind it
  // exceeds this many bytes is marked CE. 0 = off (no cost on the per-packet path).
  std::uint64_t ecn_threshold_bytes = 0;
};

struct SwitchCounters {
  std::uint64_t packets_forwarded = 0;
  std::uint64_t packets_dropped = 0;  // lossy drop-tail
  std::uint64_t ce_marked = 0;        // data packets this switch marked CE
};

// What a switch reads at every packet, in the four cache lines at the start of the object: the event
// target's vtable pointer, then these fields (Switch derives from EventTarget first and from this second).
// The event loop brings in the first line a few events ahead (the event's target); the rest is the per-port
// arrays' addresses, the few configuration values the packet path reads, the mechanisms' pointers and the
// counters. Before, they were spread over a dozen lines of a 1.5 KiB object (the sc_module's own state,
// the configuration, the vectors' headers), which fell out of the caches on large fabrics
// (docs/performance.md, "The switch's hot lines").
struct SwitchHotState {
  using QueueBits = std::array<std::uint64_t, 2>;
  static constexpr std::uint8_t kMaxVcs = 5;
  // Per-output state, kept together in two cache lines so that serving a port touches little else: the
  // transmitter and the egress side in the first, the arbiter's request masks in the second.
  struct alignas(64) OutPort {
    Link* link = nullptr;
    // The forward interface bound to out[o], looked up at the start of simulation: one pointer beside the
    // port's state instead of the socket's own (a cache line elsewhere) on every packet.
    PacketFwIf* fw = nullptr;
    Ps tx_free_at = 0;
    std::uint64_t backlog = 0;  // bytes in VOQs for this output plus its egress queues
    QueueBits egress_nonempty{};  // egress queues holding packets
    std::uint32_t egress_packets = 0;
    std::uint16_t rr_queue = 0;  // last data queue served
    bool tx_pending = false;
    std::uint8_t requesting = 0;  // bit vc: request[vc] is not empty
    // Per VC: the input after the last one granted on that VC (the round-robin's start; 256 wraps to 0, which
    // is where the round-robin goes after the last input anyway), indexed through rr_slot_. One pointer per
    // VC: with a pointer shared by the VCs, a grant on VC 0 (an ACK stream on input i) moved the data VC's
    // start back to i + 1 after every control packet, and the data inputs at or below i starved behind the
    // ones above for as long as both streams lasted.
    std::array<std::uint8_t, kMaxVcs> rr_input{};
    QueueBits data_slot_free{};  // data egress queues with a free maximum-size slot
    std::uint64_t max_backlog = 0;
    std::array<std::uint64_t, kMaxVcs> request{};  // per VC: inputs with a non-empty VOQ to this output
  };
  static_assert(sizeof(OutPort) == 128, "an output port is two cache lines");
  // Per-input state in two cache lines: what a grant and the release of the input buffer touch in the
  // first, the arrival's bookkeeping (peak fill, buffer size) in the second.
  struct alignas(64) InPort {
    Link* link = nullptr;
    Ps row_busy = 0;
    std::uint32_t row = 0;
    std::array<std::uint64_t, kMaxVcs> fill{};      // input buffer fill per VC
    std::array<std::uint64_t, kMaxVcs> max_fill{};
    std::array<std::uint32_t, kMaxVcs> buffer{};    // config_.vc_buffer_bytes
  };
  static_assert(sizeof(InPort) == 128, "an input port is two cache lines");
  // Per port, what the prefetch hooks start from: the links on both sides (as in in_ports_ and out_ports_,
  // whose lines the hooks are about to prefetch) and what the receiver behind the output link reads when a frame
  // reaches it. 24 bytes a port, so a switch's stay in cache.
  struct PortLinks {
    Link* in = nullptr;
    Link* out = nullptr;
    const void* out_rx = nullptr;
  };
  // An egress queue entry keeps what the output's scheduler reads (when the packet is through the crossbar,
  // its size) beside the pointer, so choosing the next packet touches no packet memory.
  struct EgressEntry {
    Packet* packet;
    Ps ready;
  };
  // An egress queue: a ring of `cap` entries at `slots`, with its byte count. A ring starts with
  // kEgressRingStart entries of the per-switch array egress_slots_ and doubles, up to egress_queue_packets, when
  // a push finds it full (Switch::grow_egress; the larger rings are egress_grown_[grown]). A fabric's queues
  // mostly hold a few packets, or none (the unused classes): sizing every ring for egress_queue_packets up
  // front was the largest share of a large fabric's memory. An emptied ring starts again at its first entry,
  // so a queue that drains now and then keeps to its first cache lines instead of walking all of its slots.
  static constexpr std::uint32_t kEgressRingStart = 8;  // entries: two cache lines
  static constexpr std::uint32_t kNotGrown = 0xffffffffu;
  struct alignas(32) EgressQueue {
    std::uint64_t bytes = 0;
    EgressEntry* slots = nullptr;
    std::uint32_t head = 0;
    std::uint32_t count = 0;
    std::uint32_t cap = 0;
    std::uint32_t grown = kNotGrown;
  };
  static_assert(sizeof(EgressQueue) == 32, "two egress queues to a cache line");

  SwitchHotState(Fabric& fabric, const RoutingTable& routing, std::uint32_t id)
      : fabric_(fabric), host_at_(routing.host_at()), id_(id), route_row_(routing.next_hop_row(id)),
        route_ports_(routing.next_hop_ports()), routing_(routing) {}

  // First line, after the vtable pointer: all that receive() reads (the upstream link calls it during the
  // sender's event, and prefetches this line first: the receiver hint) and what the prefetch hooks start from.
  Fabric& fabric_;
  Ps ingress_ps_ = 0;  // config_.ingress_ps
  Ps clock_ps_ = 1;
  std::unique_ptr<PortLinks[]> port_links_;  // [port]
  std::unique_ptr<InPort[]> in_ports_;       // [port]
  const RoutingTable::HostAt* host_at_;      // [host]: its switch and that switch's column in route_row_
  std::uint32_t id_;
  std::uint16_t radix_ = 0;  // config_.radix
  std::uint8_t vcs_ = 0;     // config_.vcs
  bool deep_prefetch_ = false;  // fabric_.prefetch_steps() == 3, read at start_of_simulation
  // Second line: the output side's arrays, this switch's routes, the egress queues' geometry, the hash.
  std::unique_ptr<OutPort[]> out_ports_;  // [port]
  std::unique_ptr<Voq[]> voqs_;           // voq_index(i, o, vc)
  std::unique_ptr<EgressQueue[]> egress_;  // [o * egress_queues + q]
  const std::uint32_t* route_row_;    // RoutingTable::next_hop_row(id_): [column] -> next-hop list
  const std::uint16_t* route_ports_;  // RoutingTable::next_hop_ports()
  std::uint32_t egress_queues_ = 0;         // config_.egress_queues
  std::uint32_t egress_queue_packets_ = 0;  // config_.egress_queue_packets
  std::uint32_t hash_salt_ = 0;
  bool hash_routes_ = false;     // policy_->hash_only()
  bool plain_topology_ = false;  // no dragonfly groups, no up*/down*: a route is route_row_'s list
  bool plain_routes_ = false;    // plain_topology_ and no Flowcut: the hooks may hash the route themselves
  bool wide_ = false;            // radix above 64
  // Third line: the egress rings, the mechanisms, the frames this switch generates, the crossbar's timing.
  // [(o * egress_queues + q) * min(kEgressRingStart, egress_queue_packets) + k]: each queue's first ring. Left
  // uninitialized (only entries between a queue's head and its count are read), so building a large fabric
  // does not write megabytes of slots never used.
  std::unique_ptr<EgressEntry[]> egress_slots_;
  std::unique_ptr<FlowcutEngine> flowcut_;  // before policy_, which refers to it
  std::unique_ptr<RoutingFunction> policy_;
  std::unique_ptr<EgressFc> efc_;  // switch.flow_control other than none: data egress queues live here
  PacketRing* local_queues_ = nullptr;  // local_control_'s per output, null when none
  Ps xbar_ps_ = 0;  // grant to egress-ready: latency minus ingress
  double internal_ps_per_byte_ = 0;
  std::unique_ptr<Ps[]> column_busy_;  // [row * radix + o]
  // Fourth line: the egress sizes, the arbiter's pointers, the modes, the counters a packet moves, ECN and the
  // routing table (for what the parts above do not cover: groups, up*/down*).
  std::uint32_t egress_queue_bytes_ = 0;  // config_.egress_queue_bytes
  std::uint32_t max_packet_bytes_ = 0;    // config_.max_packet_bytes
  std::uint32_t data_queues_ = 0;  // egress queues minus the control queue
  std::array<std::uint8_t, kMaxVcs> rr_slot_{};  // VC -> its round-robin pointer in OutPort::rr_input (all 0: shared)
  bool lossless_ = true;        // config_.lossless
  bool tiled_crossbar_ = true;  // config_.tiled_crossbar
  bool telemetry_ = false;      // routing.policy = telemetry: packets accumulate their queuing delay
  SwitchCounters counters_;
  std::uint64_t ecn_threshold_ = 0;  // config_.ecn_threshold_bytes
  const RoutingTable& routing_;
  VoqBlocks voq_blocks_;  // where the VOQs' entries live
};

// The routing policy (RoutingFunction, created by name from the registry) picks a data packet's output
// among its candidates; the Flowcut engine keeps the switch's Flowcut table (full-switch and ingress-only
// variants), with the switch as its FlowcutOwner (control frames out, held packets back in).
class alignas(64) Switch : public EventTarget,
                           private SwitchHotState,
                           public sc_core::sc_module,
                           public LinkSender,
                           private FlowcutOwner {
 public:
  std::vector<std::unique_ptr<TargetSocket>> in;
  std::vector<std::unique_ptr<InitiatorSocket>> out;

  Switch(const sc_core::sc_module_name& name, Fabric& fabric, const SwitchConfig& config,
         const RoutingTable& routing, std::uint32_t id, std::uint64_t seed);
  // The mechanisms first, in the order they refer to each other: they live in SwitchHotState, a base destroyed
  // after the members they refer to (the routing context).
  ~Switch() override {
    efc_.reset();
    policy_.reset();
    flowcut_.reset();
  }

  // The links on each side of a port (for credits and transmitter state). Called while building.
  void attach(std::uint16_t port, Link* in_link, Link* out_link);

  std::uint32_t id() const { return id_; }
  std::uint16_t radix() const { return config_.radix; }
  const SwitchConfig& config() const { return config_; }
  const SwitchCounters& counters() const { return counters_; }
  // Largest backlog (VOQ + egress bytes) seen for an output, and the largest input-buffer fill per VC.
  std::uint64_t max_backlog(std::uint16_t port) const { return out_ports_[port].max_backlog; }
  // Entries egress queue q of an output has room for now: its ring grows on demand, from
  // min(8, egress_queue_packets) to at most egress_queue_packets, so this is at least the most it held.
  std::uint32_t egress_ring_capacity(std::uint16_t port, std::uint32_t q) const {
    return egress_[std::size_t{port} * egress_queues_ + q].cap;
  }
  std::uint64_t max_input_fill(std::uint16_t port, std::uint8_t vc) const { return in_ports_[port].max_fill[vc]; }
  std::uint64_t backlog(std::uint16_t port) const { return out_ports_[port].backlog; }

  void on_event(std::uint32_t kind, std::uint64_t data) override;
  // Bindings are complete: looks up what each output is bound to, once, off the packet path.
  void start_of_simulation() override;
  void prefetch(std::uint32_t kind, std::uint64_t data, unsigned step) const override;
  Ps event_packet_sent(std::uint32_t kind, std::uint64_t data) const override {
    return kind == kArrive ? reinterpret_cast<const Packet*>(data)->t_sent : kNever;
  }
  // An arrival's hooks with three steps (the fabric's prefetch_steps() is 3: the hooks spread their work over
  // steps 2, 1 and 0, each reading only what the step before brought in).
  void prefetch_arrival_deep(const Packet* p, const RoutingTable::HostAt& at, bool plain_routes, unsigned step) const;
  // Step 0 of an arrival with two steps or three: the credit-return slot on the input link, and for a local
  // host the VOQ. Returns hashed_output() for a remote host, else -1.
  [[gnu::always_inline]] inline int prefetch_arrival_step0(const Packet* p, const RoutingTable::HostAt& at,
                                                           bool plain_routes) const;
  // The output the hash picks for p, where route() makes that choice a pure function of the packet (plain
  // routes under a hash-only policy, or any packet other than data), else -1.
  [[gnu::always_inline]] inline int hashed_output(const Packet* p, const RoutingTable::HostAt& at, bool plain_routes) const;
  // What a grant to o touches first: prefetch_output_lines, and the output link's first line read.
  void prefetch_output(std::uint16_t o, const Packet* p) const;
  // The lines of output o a grant of p touches, prefetched (the output link's line is not read). Always
  // inlined: GCC finds that a function of prefetches alone has no effect and drops a call to it.
  [[gnu::always_inline]] inline void prefetch_output_lines(std::uint16_t o, const Packet* p) const;
  // What a grant at o after a transmission or a credit touches first: step 1 the port and its VOQs of the
  // data VC, step 0 the head packet the round-robin comes to (read), its input port and input link. With three
  // steps: step 2 the port, step 1 the VOQ entry, input port and link entry of the input the round-robin comes
  // to, step 0 its head packet (read) and input link.
  void prefetch_grant(std::uint16_t o, unsigned step) const;
  // The input and VC the arbiter of o comes to first (reads the port's request masks); false when none requests.
  [[gnu::always_inline]] inline bool grant_pick(std::uint16_t o, std::uint8_t& vc, std::uint16_t& i) const;
  void prefetch_credit(std::uint16_t port, unsigned step) const override { prefetch_grant(port, step); }
  void on_credit(std::uint16_t port) override;

  void set_flows(FlowTable* flows) { ctx_.flows = flows; }
  // Flowcuts this switch starts go to `o` (the packet trace).
  void set_flow_observer(FlowEventObserver* o) { ctx_.flow_observer = o; }
  const FlowcutTableIf* flowcut_table() const { return flowcut_ ? &flowcut_->table() : nullptr; }
  const FlowletTableIf* flowlet_table() const { return policy_->flowlet_table(); }
  const FlowcutCounters& flowcut_counters() const { return flowcut_ ? flowcut_->counters() : kNoFlowcut; }
  const EgressFc* egress_fc() const { return efc_.get(); }

  // Every mechanism of this switch reports its statistics (tlm/model/report.h), in a fixed order: the ECN
  // marking here, the routing policy, the Flowcut engine, egress flow control.
  void report(Report& r) const {
    r.enter(name());
    report_ecn(r);
    policy_->report(r);
    if (flowcut_) flowcut_->report(r);
    if (efc_) efc_->report(r);
  }

 private:
  static constexpr std::uint32_t kMinPacketBytes = 64;
  static constexpr std::uint32_t kNoQueue = 0xffffffffu;

  friend class PortTarget<Switch>;
  void receive(std::uint16_t port, Packet* p, Ps delay);
  // What receive() reads of the switch: the sending side's link prefetches it before calling (TxDone's hooks).
  const void* rx_hint(std::uint16_t) const { return static_cast<const EventTarget*>(this); }
  std::vector<std::unique_ptr<PortTarget<Switch>>> fw_;
  NoBackwardPath bw_;
  void copy_hot_config();  // what the packet path reads of config_, into the hot lines (constructor)
  void lay_out_ports();    // the per-port arrays, VOQs and egress queues (constructor)
  void build_routing();  // the routing context, the Flowcut engine, the policy (constructor)
  // A packet-hop's steps, always inline at their callers in switch.cpp: as calls, their entries and exits were a
  // tenth of a small fabric's instructions (docs/performance.md, "The hop inline").
  [[gnu::always_inline]] inline void arrive(Packet* p);
  [[noreturn]] void input_overflow(const Packet* p) const;
  void enqueue(Packet* p, std::uint16_t o);
  [[gnu::always_inline]] inline void enqueue_here(Packet* p, std::uint16_t o);  // enqueue, inline in arrive
  [[gnu::always_inline]] inline std::uint16_t route(Packet* p);
  void assign_vc(Packet* p, std::uint16_t o);
  void release_input(const Packet* p);  // frees its input-buffer space and returns the credit upstream
  // The same, from a VOQ entry (inline in the grant).
  void release_input(std::uint16_t i, std::uint8_t in_vc, std::uint32_t in_size);
  const std::uint16_t* candidates(const Packet* p, const RoutingTable::HostAt& at, std::uint32_t& n) const;
  static constexpr std::uint16_t kHeld = RoutingFunction::kHeld;
  // Flowcut: an ACK arriving here (true when consumed), the ACK of a packet leaving for its host.
  bool flowcut_ack_in(Packet* a);
  void send_flowcut_ack(const Packet* p);
  // FlowcutOwner.
  Ps ack_transmission_term(std::uint16_t out_port, std::uint32_t ack_bytes, unsigned hops) const override;
  void inject_control(Packet* p, std::uint16_t o) override;
  void schedule_fgfc_poll(Ps at) override { fabric_.schedule(at, this, kFgfcPoll); }
  const std::uint16_t* held_candidates(const Packet* p, std::uint32_t& n) override {
    return candidates(p, host_at_[p->dst_host], n);
  }
  void release_held(Packet* p, std::uint16_t o) override {
    assign_vc(p, o);
    enqueue(p, o);
  }
  static const FlowcutCounters kNoFlowcut;
  // ECN marking (switch.ecn_threshold_bytes): the ecn section, in use when the threshold is set.
  void report_ecn(Report& r) const {
    ReportSection& s = r.section("ecn");
    s.set("threshold_bytes", config_.ecn_threshold_bytes);
    s.sum("ce_marks", counters_.ce_marked);
    if (config_.ecn_threshold_bytes > 0) s.open();
  }
  enum SwitchEvent : std::uint32_t { kArrive = 1, kTxDone = 2, kFgfcPoll = 3, kFcKick = 4 };
  // The arbiter and the egress are tried several times per packet, and most tries find nothing to do;
  // those return here, inline, before the call into the work proper (grant, transmit_next).
  void try_grant(std::uint16_t o) {
    const OutPort& op = out_ports_[o];
    if (!op.link) return;
    if (op.requesting || local_control_waits(o)) return grant(o);
    if (efc_ && !fc_out_.empty()) send_fc_frames();
  }
  void grant(std::uint16_t o) { wide_ ? grant_ports<true>(o) : grant_ports<false>(o); }
  // An arrival at an output nothing else requests, of egress queue q below the output: true when granted.
  [[gnu::always_inline]] inline bool grant_alone(std::uint16_t o, Packet* p, std::uint32_t q);
  // Frames this switch generated (Flowcut ACKs, FGFC) wait for output o.
  bool local_control_waits(std::uint16_t o) const { return local_queues_ && !local_queues_[o].empty(); }
  template <bool Wide>
  void grant_ports(std::uint16_t o);  // the arbiter, for up to 64 ports or above
  void try_transmit(std::uint16_t o) {
    if (efc_) return try_transmit_fc(o);
    OutPort& op = out_ports_[o];
    if (op.egress_packets == 0) return;
    if (op.tx_free_at > fabric_.now()) {
      if (!op.tx_pending) {
        op.tx_pending = true;
        fabric_.schedule(op.tx_free_at, this, kTxDone, o);
      }
      return;
    }
    transmit_next(o);
  }
  void transmit_next(std::uint16_t o);  // the port is free and packets wait
  void try_transmit_fc(std::uint16_t o);
  // Onto the link: serialization, cut-through, counters.
  [[gnu::always_inline]] inline void send(std::uint16_t o, Packet* p);
  void add_queuing_delay(Packet* p, Ps start) const;  // telemetry routing
  void fc_frame_in(Packet* p);            // a PAUSE / RESUME from the neighbour on p->in_port
  void send_fc_frames();                  // the frames EgressFc asked for, into the control queues
  std::uint32_t egress_queue_of(const Packet* p) const {
    // The division only for a class beyond the data queues (the arbiter calls this for every head it looks at).
    const std::uint32_t c = p->tclass;
    return p->type == PacketType::data ? 1 + (c < data_queues_ ? c : c % data_queues_) : 0;
  }
  // VOQs are laid out by output and VC, then input: an output's arbiter scans adjacent entries, and the
  // prefetch hooks can bring in an output's VOQs of one VC in a few lines.
  std::size_t voq_index(std::uint16_t i, std::uint16_t o, std::uint8_t vc) const {
    return (std::size_t{o} * vcs_ + vc) * radix_ + i;
  }
  Voq& voq(std::uint16_t i, std::uint16_t o, std::uint8_t vc) { return voqs_[voq_index(i, o, vc)]; }
  bool data_slot_free(std::size_t eq) const {
    return egress_[eq].bytes + max_packet_bytes_ <= egress_queue_bytes_ && !egress_full(eq);
  }
  // Whether egress queue eq takes a head of VC vc and `size` bytes: control needs its own size, data a maximum-size
  // slot (with hop-by-hop flow control, `shared`, data waits in the shared buffer instead).
  bool egress_room(std::uint8_t vc, std::size_t eq, std::uint32_t size, bool shared) const {
    return vc == 0 ? egress_[eq].bytes + size <= egress_queue_bytes_ && !egress_full(eq)
                   : shared || data_slot_free(eq);
  }
  // Per output, one bit per egress queue (up to 128): which queues hold packets, and which data queues have
  // a free maximum-size slot. Kept up to date at every push and pop so the output's scheduler and arbiter
  // never scan the queues.
  static void set_bit(QueueBits& b, std::uint32_t q, bool on) {
    if (on) b[q >> 6] |= std::uint64_t{1} << (q & 63);
    else b[q >> 6] &= ~(std::uint64_t{1} << (q & 63));
  }
  // p, through the crossbar at `ready` and of `size` bytes, joins egress queue q of o (its t_ready is written at
  // egress_pop: the grant does not touch the packet).
  void egress_push(std::uint16_t o, std::uint32_t q, Packet* p, Ps ready, std::uint32_t size);
  [[gnu::always_inline]] inline Packet* egress_pop(std::uint16_t o, std::uint32_t q);
  // The first set bit of `b` in [lo, hi); kNoQueue when none.
  static std::uint32_t first_bit(const QueueBits& b, std::uint32_t lo, std::uint32_t hi);
  Ps on_clock(Ps t) const { return (t + clock_ps_ - 1) / clock_ps_ * clock_ps_; }

  // Radix above 64: output o's requests of VC vc from inputs 64g..64g+63, one bit each (OutPort::request
  // then has one bit per non-empty group).
  std::uint64_t& wide_request(std::uint16_t o, std::uint8_t vc, unsigned g) {
    return wide_request_[(std::size_t{o} * vcs_ + vc) * kWideWords + g];
  }
  // Whether some data egress queue of the output has a free maximum-size slot (a data grant needs one).
  static bool any_data_slot_free(const OutPort& op) { return (op.data_slot_free[0] | op.data_slot_free[1]) != 0; }
  // The grant of VOQ (i, o, vc)'s head once its checks have passed, into egress queue q of o (below the class).
  void take_head(OutPort& op, std::uint16_t o, std::uint16_t i, std::uint8_t vc, Voq& v, bool shared, std::size_t q);
  // The grant proper, of packet p of input i (its size, and the VC and share of the input buffer it holds), after
  // it left its VOQ (the values from its entry) or without it ever joining one (grant_alone).
  void grant_packet(OutPort& op, std::uint16_t o, std::uint16_t i, std::uint8_t vc, Packet* p, std::uint32_t size,
                    std::uint8_t in_vc, std::uint32_t in_size, bool shared, std::size_t q);
  void set_request(OutPort& op, std::uint16_t o, std::uint8_t vc, std::uint16_t i) {
    if (!wide_) {
      op.request[vc] |= std::uint64_t{1} << i;
    } else {
      wide_request(o, vc, i >> 6) |= std::uint64_t{1} << (i & 63);
      op.request[vc] |= std::uint64_t{1} << (i >> 6);
    }
    op.requesting |= static_cast<std::uint8_t>(1u << vc);
  }
  void clear_wide_request(OutPort& op, std::uint16_t o, std::uint8_t vc, std::uint16_t i) {
    if (!(wide_request(o, vc, i >> 6) &= ~(std::uint64_t{1} << (i & 63))))
      op.request[vc] &= ~(std::uint64_t{1} << (i >> 6));
    if (!op.request[vc]) op.requesting &= static_cast<std::uint8_t>(~(1u << vc));
  }
  // What the wide arbiter found at input i: nothing for it (its head does not fit), no credit for its VC,
  // or a grant.
  enum class Try : std::uint8_t { skip, blocked, granted };
  Try grant_input(OutPort& op, std::uint16_t o, std::uint8_t vc, std::uint16_t i, bool shared, std::size_t base);
  // Radix above 64: the round-robin over the groups' words, from input `start` on (Try::skip: no grant).
  Try grant_wide(OutPort& op, std::uint16_t o, std::uint8_t vc, bool shared, std::size_t base);


  // An output bound to something other than its link (a component outside the model) gets the packet
  // through this: b_transport is synchronous, so one payload serves all ports.
  ForeignTarget foreign_;
  void send_foreign(PacketFwIf* fw, Packet* p, Ps delay);
  static constexpr unsigned kWideWords = kMaxSwitchRadix / 64;
  std::vector<std::uint64_t> wide_request_;  // radix above 64: [(o * vcs + vc) * kWideWords + group]
  bool egress_full(std::size_t eq) const { return egress_[eq].count == egress_queue_packets_; }
  const EgressEntry& egress_front(std::size_t eq) const {
    const EgressQueue& e = egress_[eq];
    return e.slots[e.head];
  }
  // A push found queue eq's ring full below egress_queue_packets: a ring twice its size (at most that).
  void grow_egress(EgressQueue& e);
  std::vector<std::unique_ptr<EgressEntry[]>> egress_grown_;  // the rings queues grew into (EgressQueue::grown)
  std::vector<std::uint64_t> queued_bytes_;           // lossy: [o * egress_queues + q] VOQ + egress bytes

  SwitchConfig config_;
  Rng rng_;
  RoutingContext ctx_;  // what the policy and the Flowcut engine read of this switch
  std::vector<PacketRing> local_control_;  // per output: frames generated here
  std::vector<FcFrame> fc_out_;
};

// The grant of the head of VOQ (i, o, vc), whose checks have passed: the step of both arbiters and the arrival's,
// inline in each (a call measured 1.5% more instructions on the 128-host run). It reads the VOQ entry, not the
// packet.
inline void Switch::take_head(OutPort& op, std::uint16_t o, std::uint16_t i, std::uint8_t vc, Voq& v, bool shared,
                              std::size_t q) {
  const VoqEntry e = *v.head;
  voq_blocks_.pop(v);
  if (!v.head) {
    if (wide_) clear_wide_request(op, o, vc, i);
    else if (!(op.request[vc] &= ~(std::uint64_t{1} << i))) op.requesting &= static_cast<std::uint8_t>(~(1u << vc));
  }
  Packet* p = e.packet();
  // The port may send it next (after a credit or a transmission, at once): start bringing it in.
  __builtin_prefetch(p);
  grant_packet(op, o, i, vc, p, e.size, e.in_vc(), e.in_size, shared, q);
}

inline void Switch::grant_packet(OutPort& op, std::uint16_t o, std::uint16_t i, std::uint8_t vc, Packet* p,
                                 std::uint32_t size, std::uint8_t in_vc, std::uint32_t in_size, bool shared,
                                 std::size_t q) {
  op.rr_input[rr_slot_[vc]] = static_cast<std::uint8_t>(i + 1);
  if (!shared) op.link->take_credits(vc, size);
  release_input(i, in_vc, in_size);
  InPort& ip = in_ports_[i];
  const Ps now = fabric_.now();
  const std::size_t col = std::size_t{ip.row} * radix_ + o;
  // The row bus into the tile crossbar's buffer, then the column channel (switch.crossbar tiled: a busy column
  // does not hold the row bus; single: one circuit holds both).
  const Ps xfer = static_cast<Ps>(size * internal_ps_per_byte_ + 0.5);
  const Ps row_start = std::max(now, ip.row_busy);
  const Ps xfer_start = std::max(row_start, column_busy_[col]);
  ip.row_busy = (tiled_crossbar_ ? row_start : xfer_start) + xfer;
  column_busy_[col] = xfer_start + xfer;
  const Ps ready = on_clock(xfer_start + xbar_ps_);
  if (shared) {
    p->t_ready = ready;
    efc_->enqueue(o, p, now, fc_out_);
  } else {
    egress_push(o, static_cast<std::uint32_t>(q), p, ready, size);
  }
  ++op.egress_packets;
}

inline void Switch::release_input(std::uint16_t i, std::uint8_t in_vc, std::uint32_t in_size) {
  // The packet leaves the input buffer: its credit goes back upstream.
  InPort& ip = in_ports_[i];
  ip.fill[in_vc] -= in_size;
  if (Link* link = ip.link) link->return_credits(in_vc, in_size);
}

inline void Switch::egress_push(std::uint16_t o, std::uint32_t q, Packet* p, Ps ready, std::uint32_t size) {
  const std::size_t eq = std::size_t{o} * egress_queues_ + q;
  EgressQueue& e = egress_[eq];
  if (__builtin_expect(e.count == e.cap, 0)) grow_egress(e);  // the caller checked !egress_full(eq)
  std::uint32_t k = e.head + e.count;
  if (k >= e.cap) k -= e.cap;
  e.slots[k] = EgressEntry{p, ready};
  ++e.count;
  e.bytes += size;
  OutPort& op = out_ports_[o];
  set_bit(op.egress_nonempty, q, true);
  if (q != 0) set_bit(op.data_slot_free, q, data_slot_free(eq));
}

// Up*/down* and dragonfly groups only where the topology has them (plain_topology_ read in the switch's hot lines).
inline void Switch::assign_vc(Packet* p, std::uint16_t o) {
  if (!plain_topology_ && routing_.up_down() && !routing_.is_up(id_, o) && routing_.peer(id_, o) != RoutingTable::kHost)
    p->went_down = 1;
  // A telemetry PTM waits in the data queues, as the data of its path would: its accumulated delay measures
  // them (Mizrahi et al. III). On the control VC it would pass every data queue and measure nothing.
  if (p->type == PacketType::data || p->type == PacketType::ptm) {
    p->vc = static_cast<std::uint8_t>(1 + std::min<int>(p->global_hops, vcs_ - 2));
    if (!plain_topology_ && routing_.is_global_port(id_, o)) ++p->global_hops;
  } else {
    p->vc = 0;
  }
}

}  // namespace netasic
