// The run's flows: what each source NIC sends and what each destination NIC has received.
// One table for the fabric; a NIC touches only the flows it sends or receives.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "tlm/common/flow_key.h"
#include "tlm/common/units.h"

namespace netasic {

// The part of a flow every transport shares: identity, the sender's progress, the receiver's delivery and
// ordering statistics, and the per-flow statistics of flows.csv. What a transport keeps beyond this (acked
// bitmaps, resend sets, scoreboards, rearrange connection, injection state, congestion window) lives in
// the transport of the flow's source or destination NIC, at the flow's slot there (tlm/model/transport.h).
struct Flow {
  std::uint32_t id = 0;
  std::uint32_t src = 0, dst = 0;  // host indices
  std::uint64_t size_bytes = 0;
  Ps start = 0;
  std::uint8_t tclass = 0;
  FlowKey key;
  std::uint32_t hash = 0;
  std::uint32_t packets = 0;  // number of MTU packets
  std::uint32_t tx_slot = 0xffffffffu;  // the flow's index in its source NIC's transport state
  std::uint32_t rx_slot = 0xffffffffu;  // the flow's index in its destination NIC's transport state

  // Sender.
  std::uint32_t next_psn = 0;       // next new packet to send (moves back after a rewind)
  std::uint32_t sent_high = 0;      // one past the highest PSN ever sent
  std::uint32_t acked_count = 0;
  std::uint64_t inflight_bytes = 0;
  Ps last_ack = 0;
  bool rto_armed = false;
  bool sender_done = false;

  // Receiver.
  std::uint32_t expected_psn = 0;    // every PSN below is delivered in order
  std::uint64_t delivered_bytes = 0;
  std::uint64_t ooo_packets = 0;
  std::uint64_t late_packets = 0;    // arrived after a higher PSN of the flow
  std::uint32_t highest_psn = 0;     // highest PSN received + 1
  std::uint32_t max_ooo_degree = 0;
  std::uint64_t duplicates = 0;
  Ps finish = kNever;
  bool done() const { return finish != kNever; }

  // Routing events reported per flow (path changes: a later packet left on a new path).
  std::uint64_t path_changes = 0;
  std::uint64_t flowcuts = 0;        // Flowcut: new flowcuts (entries) created for the flow at its ingress
  std::uint64_t drains = 0;
  Ps drain_ps = 0;                   // time the source held the flow paused for a drain
  Ps paused_since = kNever;          // source side: paused by FGFC or a NIC-only drain since then
  std::int32_t last_port = -1;       // port (or entropy) of the flow's previous flowcut / flowlet
  std::uint32_t tm_rx_delay_ns = 0;  // telemetry, destination side: the latest data packet's accumulated delay
  std::uint16_t tm_rx_port = 0;      // ... and the source port it came by (reflected in ACKs)
  bool fc_draining = false;          // NIC-only: the source NIC drains this flow
  bool fc_move = false;              // NIC-only: drained off its path; its next flowcut takes new ECMP entropy
  std::uint32_t hop_pauses = 0;      // source side: PAUSEs from the first switch not yet resumed
  Ps hop_paused_since = 0;
  Ps hop_paused_ps = 0;              // time the flow spent stopped by PAUSE frames
  std::uint64_t retransmits = 0;
  std::uint64_t timeouts = 0;
};

// Starts a flow whose predecessors have all been delivered (the testbench hands it to its source NIC).
class FlowReleaser {
 public:
  virtual ~FlowReleaser() = default;
  virtual void release(std::uint32_t flow, Ps at) = 0;
};

// Told when a flow's source has every byte acknowledged and when its destination has every byte in order
// (the NICs' host interfaces, tlm/model/nic_host.h). Called from inside the fabric's method.
class FlowListener {
 public:
  virtual ~FlowListener() = default;
  virtual void sender_done(const Flow& f) = 0;
  virtual void delivered(const Flow& f) = 0;
};

class FlowTable {
 public:
  std::vector<Flow>& flows() { return flows_; }
  const std::vector<Flow>& flows() const { return flows_; }
  Flow& operator[](std::uint32_t id) { return flows_[id]; }
  std::size_t size() const { return flows_.size(); }
  std::uint64_t completed() const { return completed_; }
  // Returns true when this was the last flow, and no more may come (keep_open).
  bool mark_completed() { return ++completed_ == flows_.size() && !open_; }
  // Counts the completed flows again (after records were merged in from elsewhere: a run across processes).
  void recount_completed() {
    completed_ = 0;
    for (const Flow& f : flows_) completed_ += f.done() ? 1 : 0;
  }
  // Flows may be added while the model runs (host-interface messages): the run does not end when the
  // flows known so far are complete.
  void keep_open() { open_ = true; }
  void set_listener(FlowListener* l) { listener_ = l; }
  // The source has every byte of f acknowledged.
  void sender_finished(Flow& f) {
    if (f.sender_done) return;
    f.sender_done = true;
    if (listener_) listener_->sender_done(f);
  }

  // Dependencies (collective steps, execution traces): flow `after` starts when every predecessor has been
  // delivered, `gap` after the last of them, and no earlier than each predecessor's delivery plus its edge's
  // delay (`edge_delay`, parallel to `before_after`; empty: none) nor than its `floor` (empty: none). A flow
  // with predecessors has no start time of its own. Set before the run, with a releaser.
  void set_dependencies(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& before_after,
                        const std::vector<Ps>& gap, FlowReleaser* releaser, const std::vector<Ps>& edge_delay = {},
                        const std::vector<Ps>& floor = {});
  bool waits(std::uint32_t id) const { return !waits_.empty() && waits_[id] > 0; }
  // Flow f is delivered: its successors that wait for nothing else start.
  void delivered(const Flow& f, Ps now) {
    if (f.id + 1 < succ_begin_.size()) release_successors(f.id, now);  // flows added later have none
    if (listener_) listener_->delivered(f);
  }

 private:
  void release_successors(std::uint32_t id, Ps now);
  std::vector<Flow> flows_;
  std::uint64_t completed_ = 0;
  std::vector<std::uint32_t> waits_;       // per flow: predecessors not yet delivered
  std::vector<std::uint32_t> succ_begin_;  // per flow + 1: where its successors start in succ_
  std::vector<std::uint32_t> succ_;
  std::vector<Ps> succ_delay_;  // per edge in succ_ order; empty when no edge has a delay
  std::vector<Ps> ready_;       // per flow: the latest delivery + edge delay seen so far, and its floor
  std::vector<Ps> gap_;
  FlowReleaser* releaser_ = nullptr;
  FlowListener* listener_ = nullptr;
  bool open_ = false;
};

// Why a flow's source NIC holds it (the packet trace shows each hold as a slice on the flow's track).
enum class FlowHold : std::uint8_t {
  fgfc_pause,   // Flowcut: an FGFC XOFF from a switch paused the flow
  class_pause,  // Flowcut: an XOFF found the NIC's paused-flow cache full and paused the traffic class
  nic_drain,    // Flowcut NIC-only: the NIC drains the flow's in-flight bytes before a flowcut
  hop_pause,    // FlowSail, BFC, ideal: the first switch paused the flow
};
inline const char* flow_hold_name(FlowHold h) {
  switch (h) {
    case FlowHold::fgfc_pause: return "fgfc pause";
    case FlowHold::class_pause: return "class pause";
    case FlowHold::nic_drain: return "drain";
    case FlowHold::hop_pause: return "hop pause";
  }
  return "hold";
}

// Observes per-flow events of the model that no wire shows: a source hold starting or ending, a flowcut
// starting. Set by the testbench (packet trace) on NICs and switches; called only at those events, never
// per packet, and not at all when unset.
class FlowEventObserver {
 public:
  virtual ~FlowEventObserver() = default;
  virtual void on_hold(std::uint32_t flow, FlowHold why, Ps at) = 0;
  // The hold ends: the first switch's pause (hop) or the FGFC / drain hold (not hop).
  virtual void on_release(std::uint32_t flow, bool hop, Ps at) = 0;
  // A new flowcut of the flow starts (at its ingress switch, or at its source NIC under nic_only).
  virtual void on_flowcut(std::uint32_t flow, std::uint32_t flowcut, Ps at) = 0;
};

}  // namespace netasic
