// Hop-by-hop flow control at a switch's egress ports (switch.flow_control), see docs/flowsail.md.
//
// EgressFc is the interface the switch calls and the machinery every scheme shares: each output has data
// FIFOs drawing on one switch-wide shared buffer; queue groups (traffic class modulo `groups`) are served
// by strict priority, round-robin or deficit round-robin inside a group; a queue whose scheme holds it
// (Queue::stop) is passed over; Order Mark pairs keep a flow in order when it moves between queues.
//
// A scheme is a class derived from EgressFc that fills in the hooks (which queue a packet joins, what its
// arrival and departure count, what a received PAUSE / RESUME stops) and keeps its own per-port and
// per-flow state; make_egress_fc() creates it by FcMode from one registry (egress_fc.cpp), which also
// holds the scheme names. The schemes:
//   - pfc (egress_fc_pfc.h): per-priority pause of the whole upstream port when a (port, class) ingress
//     count passes XOFF, resume below XON; data queues mapped statically by flow hash;
//   - bfc (egress_fc_flow.h): BFC-style: a queue per active flow while queues last (else a random one); a
//     queue above its threshold marks every arriving packet and pauses the packet's flow upstream, and
//     upstream a queue stops while it holds a paused flow (every flow sharing it stops too);
//   - ideal (egress_fc_flow.h): one queue per flow; a flow's queue above the threshold pauses that flow
//     alone upstream;
//   - flowsail (egress_fc_flowsail.h): FlowSail (Li et al., IEEE/ACM ToN 2024) per port and group, through
//     the block model tlm/blocks/flowsail: flow-to-queue mapping, hierarchical congested-flow
//     identification, PAUSE(FID) / RESUME(FID) to the upstream hop; upstream, on-demand isolation in rsvQ
//     with Order Mark matching.
// A new scheme: one class derived from EgressFc and one line in the registry, plus its FcMode value.
//
// The egress role (this switch's queues mark packets and send PAUSE / RESUME to the packet's input port)
// and the upstream role (frames received on a port stop that port's queues or flows) share one object per
// switch. Control frames and ACKs do not use these queues: they stay in the switch's control queue.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "tlm/blocks/flowsail.h"
#include "tlm/common/log_histogram.h"
#include "tlm/common/rng.h"
#include "tlm/model/packet.h"
#include "tlm/model/report.h"

namespace netasic {

enum class FcMode : std::uint8_t { none, pfc, bfc, flowsail, ideal };

// The registry's names (switch.flow_control): the name of a mode, the mode of a name (InputError naming
// the key on unknown names), every name.
const char* to_string(FcMode m);
FcMode parse_fc_mode(const std::string& name);
std::vector<std::string> fc_mode_names();
// Every registered scheme's scenario name and enumerator (the switch.flow_control key's choices).
std::vector<std::pair<const char*, FcMode>> fc_mode_choices();

struct EgressFcConfig {
  FcMode mode = FcMode::none;
  TimeWindow stats_window;        // what time-weighted statistics count (FlowSail table occupancy)
  unsigned queues = 8;            // data queues per port, 2 .. 128 (ideal: ignored, one queue per flow)
  unsigned groups = 1;            // strict-priority queue groups; must divide `queues`
  bool drr = false;               // inside a group: deficit round-robin instead of round-robin
  std::uint32_t quantum_bytes = 4160;
  std::uint64_t buffer_bytes = 12ull * 1024 * 1024;  // shared by every data queue of the switch
  // N_active below: queues of the group that hold packets and are not stopped (at least 1).
  std::uint32_t q_low_bytes = 0;   // 0: 1 hop-BDP / N_active (FlowSail Ql, BFC threshold; ideal: 1 hop-BDP)
  std::uint32_t q_high_bytes = 0;  // 0: 3 hop-BDP / N_active (FlowSail Qh)
  std::uint32_t pfc_xoff_bytes = 0;  // 0: 3 hop-BDP of the input port
  std::uint32_t pfc_xon_bytes = 0;   // 0: 2 hop-BDP
  std::uint32_t nft_entries = 4096;
  std::uint32_t cft_entries = 1024;
  double cft_release_hrtt = 2;  // FlowSail: idle hop RTTs before a resumed, empty flow leaves the CFT
  FlowsailFactory flowsail_factory;  // FlowSail's blocks; empty: the C++ model (Flowsail)
  std::string owner;                 // the switch's name (the FlowSail blocks' messages and latency trace)
};

// A frame the switch must send: PAUSE or RESUME, to the neighbour on `port`.
struct FcFrame {
  bool pause;
  bool pfc;
  std::uint32_t fid;   // per-flow frames: the flow id (hash of its 5-tuple)
  std::uint32_t flow;  // the run's flow index (lets a NIC find the flow without a lookup)
  std::uint8_t tclass;
  std::uint16_t port;
};

struct FcCounters {
  std::uint64_t pause_frames = 0, resume_frames = 0;  // sent (per flow or PFC)
  std::uint64_t marked_packets = 0;                   // packets counted as congestion contributors
  std::uint64_t order_marks = 0;                      // Order Mark pairs enqueued
  std::uint64_t order_mark_waits = 0;                 // rsvQ stopped at a mark whose partner had not left
  std::uint64_t isolations = 0;                       // flows moved to rsvQ by a PAUSE
  std::uint64_t cft_collisions = 0;                   // PAUSEs that found the CFT entry taken
  std::uint64_t max_buffer_bytes = 0;                 // shared buffer high-water mark
  std::uint64_t max_queue_bytes = 0;                  // longest data queue seen
  // Sums the counts of another switch; the high-water marks keep the larger.
  void add(const FcCounters& o) {
    pause_frames += o.pause_frames;
    resume_frames += o.resume_frames;
    marked_packets += o.marked_packets;
    order_marks += o.order_marks;
    order_mark_waits += o.order_mark_waits;
    isolations += o.isolations;
    cft_collisions += o.cft_collisions;
    if (o.max_buffer_bytes > max_buffer_bytes) max_buffer_bytes = o.max_buffer_bytes;
    if (o.max_queue_bytes > max_queue_bytes) max_queue_bytes = o.max_queue_bytes;
  }
};

class EgressFc : public Reporting {
 public:
  ~EgressFc() override;
  EgressFc(const EgressFc&) = delete;
  EgressFc& operator=(const EgressFc&) = delete;

  // Port `o`'s hop RTT and one hop-BDP (link rate x hop RTT): the unit of the automatic thresholds, and
  // how long a resumed, empty congested flow stays in the CFT (2 hop-RTTs).
  void set_port_hop(std::uint16_t o, Ps hrtt, std::uint64_t bdp_bytes) {
    ports_[o].hrtt = hrtt;
    ports_[o].bdp = bdp_bytes;
  }
  bool room(std::uint32_t bytes) const { return used_ + bytes <= config_.buffer_bytes; }
  std::uint64_t used() const { return used_; }
  std::uint32_t packets(std::uint16_t o) const { return ports_[o].packets; }

  // A data packet arrived at the switch (PFC counts it against its input port and class).
  void on_arrival(const Packet* p, std::vector<FcFrame>& out) {
    if (counts_arrivals_) arrived(p, out);
  }
  // A data packet is through the crossbar into output `o`'s queues.
  void enqueue(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out);
  // The data packet output `o` sends next: among queues neither empty nor stopped, a head already at the
  // egress by `now` first (strict priority between groups, fair inside), else the head that gets there
  // first. nullptr when every queue is empty or stopped. pop() takes the packet peek() returned.
  Packet* peek(std::uint16_t o, Ps now);
  Packet* pop(std::uint16_t o, Ps now, std::vector<FcFrame>& out);
  // A PAUSE or RESUME frame arrived on port `o` from its neighbour.
  void control(std::uint16_t o, const Packet* frame, Ps now);

  const FcCounters& counters() const { return counters_; }
  const EgressFcConfig& config() const { return config_; }
  // Output o's queues the scheme holds now (PFC: queues of a paused class; FlowSail, BFC, ideal: queues
  // holding a paused flow). Sampled by the time series; not on the packet path.
  std::uint32_t stopped_queues(std::uint16_t o) const;
  // Collisions the FlowSail tables counted (flows sharing an NFT entry), over every port; 0 elsewhere.
  virtual std::uint64_t nft_collisions() const { return 0; }
  // Explicit thresholds that contradict each other (q_low above q_high, PFC XON above XOFF): InputError
  // naming the keys. Run when a scheme is built; the testbench's builder runs it first.
  static void check_thresholds(const EgressFcConfig& c);
  // The flow_control section of summary.json: this switch's frames, marks and high-water marks (once per
  // run, the time sources spent paused).
  void report(Report& r) const override;

 protected:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  static constexpr unsigned kClasses = 8;
  struct Queue {
    Packet* head = nullptr;
    Packet* tail = nullptr;
    std::uint64_t bytes = 0;
    // Non-zero: the scheme holds the queue (PFC: its class is paused; FlowSail: cfNum; BFC and ideal:
    // paused flows with packets here). Kept by the scheme so the scan tests one word, no call.
    std::uint32_t stop = 0;
    std::int64_t deficit = 0;
    std::uint32_t group = 0;
    std::uint32_t local = 0;          // index inside its group (FlowSail's queue number)
    bool mark_waits = false;          // an Order Mark at the head waits for its partner (FlowSail rsvQ)
  };
  struct Port {
    std::uint64_t bdp = 64 * 1024;
    Ps hrtt = 0;
    std::uint32_t packets = 0;
    std::vector<Queue> q;
    std::vector<std::vector<std::uint32_t>> group_queues;  // queue ids per group
    std::vector<std::uint32_t> rr;                         // per group: where the scan starts
    std::unordered_set<std::uint32_t> marks_out;           // Order Marks that left their original queue
    std::uint32_t chosen = kNone;
  };

  // `queues_per_group` fixed queues in each group of every port (0: the scheme adds them, add_queue()).
  EgressFc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool, Rng& rng,
           std::uint32_t queues_per_group);
  // switch.fc.queues split into switch.fc.groups, checked (InputError naming the key).
  static std::uint32_t queues_per_group(const EgressFcConfig& c);

  // The scheme's hooks. arrived(): a data packet at the switch, called only when counts_arrivals_ is set.
  // admit(): the queue id data packet p joins at output o (may mark it, fc_mark, and ask for frames).
  // departed(): p left queue q of output o. pfc_frame() / flow_frame(): a PFC frame for `group`, or a
  // per-flow frame for flow id `fid`, arrived on port o; a scheme ignores the kind it does not use.
  virtual void arrived(const Packet*, std::vector<FcFrame>&) {}
  virtual std::uint32_t admit(std::uint16_t o, Packet* p, Ps now, std::vector<FcFrame>& out) = 0;
  virtual void departed(std::uint16_t o, Queue& q, const Packet* p, Ps now, std::vector<FcFrame>& out) = 0;
  virtual void pfc_frame(std::uint16_t, std::uint32_t, bool) {}
  virtual void flow_frame(std::uint16_t, std::uint32_t, std::uint32_t, bool, Ps) {}

  // For the schemes: a new queue in `group` of output o (its id); an Order Mark `mark` of flow `fid` at
  // the tail of queue `id`; queues of the group holding packets and not stopped (at least 1); the
  // threshold of 1 hop-BDP shared among them, or switch.fc.q_low_bytes.
  std::uint32_t add_queue(std::uint16_t o, std::uint32_t group);
  void push_order_mark(std::uint16_t o, std::uint32_t id, std::uint32_t mark, std::uint32_t fid);
  std::uint32_t active_queues(const Port& port, std::uint32_t group) const;
  std::uint32_t shared_low(std::uint16_t o, std::uint32_t group) const {
    if (config_.q_low_bytes) return config_.q_low_bytes;
    return static_cast<std::uint32_t>(ports_[o].bdp / active_queues(ports_[o], group));
  }

  EgressFcConfig config_;
  Rng& rng_;
  std::vector<Port> ports_;
  FcCounters counters_;
  bool counts_arrivals_ = false;  // the scheme wants arrived()

 private:
  static void check_groups(const EgressFcConfig& c);
  void push(Queue& q, Packet* p);
  Packet* pop_head(Queue& q);
  void note_queue(const Queue& q) {
    if (q.bytes > counters_.max_queue_bytes) counters_.max_queue_bytes = q.bytes;
  }

  PacketPool& pool_;
  std::uint64_t used_ = 0;
};

// The registry: creates the scheme of config.mode (ModelError for none, which has no scheme).
std::unique_ptr<EgressFc> make_egress_fc(const EgressFcConfig& config, std::uint16_t radix, PacketPool& pool,
                                         Rng& rng);

}  // namespace netasic
