// The Flowcut engine (De Sensi et al., "Flowcut Switching"; flowcut.h has the mechanism's summary): the
// table bookkeeping, the ACK handling and the drain signalling of one Flowcut table, wherever it runs.
//
//   common      lookup / insert / add bytes, shadow counters for untracked bytes (overflow = untracked),
//               epochs (an ACK of an entry released early must not be taken off the flow's next entry),
//               per-entry packet counts, ACK handling: RTT normalization through RttMonitor (Section II-B),
//               the drain trigger, early resume (one rule: release a draining entry when what is still in
//               flight is at most k packets' worth of the largest payload, FlowcutParams::max_payload_bytes).
//   switch site the full-switch and ingress-only variants: routing a tracked packet (a new flowcut takes
//               the least-loaded candidate), held packets under overflow = hold, drain refresh / abandon,
//               the ingress timestamp, ACK generation at the egress switch and FGFC frames to the source
//               (through the FgfcGenerator block).
//   NIC site    the NIC-only variant: the source is the owner itself, so a drain pauses the flow in place
//               (FlowcutOwner::pause_source / resume_source) instead of sending FGFC frames.
//
// The owner (Switch, Nic) supplies what depends on where the engine runs through FlowcutOwner; its
// callbacks run on drains, resumes, generated frames and held packets, never on the per-packet fast path
// except the RTT's transmission term (once per sampled ACK).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tlm/blocks/fgfc.h"
#include "tlm/common/log_histogram.h"
#include "tlm/model/fabric.h"
#include "tlm/model/flowcut.h"
#include "tlm/model/packet.h"
#include "tlm/model/report.h"
#include "tlm/model/routing_policy.h"

namespace netasic {

// The source of a flow, as a drain addresses it.
struct FlowcutSource {
  std::uint32_t host = 0;     // the source host (where FGFC frames go)
  std::uint32_t flow_id = 0;  // the FGFC flow id (the flow hash the source's paused-flow cache keys on)
  std::uint32_t flow = 0;     // the flow's index in the flow table
};

class FlowcutOwner {
 public:
  virtual ~FlowcutOwner() = default;
  // The transmission term of an ACK's RTT sample (size x hops / rate) for an entry routed to `out_port`.
  virtual Ps ack_transmission_term(std::uint16_t out_port, std::uint32_t ack_bytes, unsigned hops) const = 0;
  // NIC site: stop a source flow (a drain starts) and restart it (drained, or early resume).
  virtual void pause_source(const FlowcutSource&) {}
  virtual void resume_source(const FlowcutSource&) {}
  // Switch site: a frame generated here (Flowcut ACK, FGFC) into output o's control queue, and a poll of
  // the FGFC generator at time `at` (then FlowcutEngine::poll_fgfc).
  virtual void inject_control(Packet*, std::uint16_t) {}
  virtual void schedule_fgfc_poll(Ps) {}
  // Switch site, overflow = hold: the candidate outputs of a held packet, and its release onto output o.
  virtual const std::uint16_t* held_candidates(const Packet*, std::uint32_t& n) {
    n = 0;
    return nullptr;
  }
  virtual void release_held(Packet*, std::uint16_t) {}
};

enum class FlowcutSite { switch_asic, nic };

class FlowcutEngine final : public Reporting {
 public:
  static constexpr std::uint8_t kMaxDrainRefreshes = 3;
  static constexpr std::uint32_t kAckHashMix = 0x5bd1e995u;  // an ACK's flow hash: the data's, mixed

  // `ctx`: the switch's routing context (switch site; null at the NIC). `clock_ps`: the FGFC generator's cycle.
  FlowcutEngine(const FlowcutParams& params, FlowcutSite site, const std::string& owner_name, FlowcutOwner& owner,
                Fabric& fabric, const RoutingContext* ctx, Ps clock_ps);

  const FlowcutTableIf& table() const { return *table_; }
  FlowcutTableIf& table() { return *table_; }
  const FlowcutCounters& counters() const { return counters_; }
  FlowcutCounters& counters() { return counters_; }
  const FlowcutParams& params() const { return params_; }
  // The flowcut section of summary.json (this table's counts, high-water mark and drains still under way;
  // once per run, the flow table's flowcuts and drain time) and this table's entry in tables.json.
  void report(Report& r) const override;

  // ---- Common ---------------------------------------------------------------------------------------
  // A new entry for `key` routed to `out_port` (with a new epoch), or none when the table (set) is full.
  std::optional<std::uint32_t> start(const WideKey& key, std::uint16_t out_port, std::uint16_t in_port);
  // One more packet of `payload` bytes in flight on entry `index`.
  void add(std::uint32_t index, std::uint32_t payload);
  // A packet that found no entry: its bytes are counted against its shadow slot instead.
  void untracked(std::uint32_t slot, std::uint32_t payload);
  bool shadowed(std::uint32_t slot) const { return shadow_[slot % shadow_.size()] != 0; }
  std::uint32_t epoch(std::uint32_t index) const { return epoch_[index]; }
  std::uint32_t packets_in_flight(std::uint32_t index) const { return packets_[index]; }
  // Overflow = hold: a flow with no entry waits while the table is full.
  bool must_hold(const WideKey& key);

  struct Ack {
    WideKey key;
    std::uint32_t shadow_slot = 0;  // the untracked packet's shadow slot
    std::uint32_t bytes = 0;        // payload bytes acknowledged
    std::uint32_t epoch = 0;
    bool tracked = false;           // the data packet was counted in this table
    bool at_source = false;         // this table is the flow's first (ingress / NIC): RTT, drains, epochs
    Ps echo_ts = 0;                 // when the data packet passed this table's owner
    unsigned hops = 0;              // switch-to-switch links of its path
    std::uint64_t packets_left = 0; // packets the source still has to send
    bool more_to_send = true;
    FlowcutSource source;
  };
  // An ACK reaches this table: the whole of Section II-B's decision (RTT sample, drain, end of drain,
  // early resume).
  void on_ack(const Ack& a);

  // ---- NIC site -------------------------------------------------------------------------------------
  struct Sent {
    bool tracked;
    bool new_flowcut;
    std::uint32_t epoch;
  };
  // A packet of flow `key` leaves the source NIC. On a miss, `on_new_flowcut(shadowed)` runs before the
  // insert (the NIC takes new ECMP entropy there when no untracked byte may still be on the old path) and
  // returns the port tag the entry stores.
  template <class NewFlowcut>
  Sent send_at_source(const WideKey& key, std::uint32_t shadow_slot, std::uint32_t payload, NewFlowcut&& on_new_flowcut) {
    if (const auto idx = table_->lookup(key)) {
      add(*idx, payload);
      return {true, false, epoch_[*idx]};
    }
    const std::uint16_t tag = on_new_flowcut(shadowed(shadow_slot));
    if (const auto idx = start(key, tag, 0)) {
      add(*idx, payload);
      return {true, true, epoch_[*idx]};
    }
    ++counters_.overflows;
    untracked(shadow_slot, payload);
    return {false, false, 0};
  }

  // ---- Switch site ----------------------------------------------------------------------------------
  // Whether this switch's table tracks data packet p (not addressed to one of its hosts).
  bool tracks(const Packet* p) const {
    return p->path_len <= Packet::kMaxPath && (params_.variant == FlowcutVariant::full_switch || ctx_->at_ingress(p));
  }
  // The output of a tracked packet among its candidates, or RoutingFunction::kHeld.
  std::uint16_t route(Packet* p, const std::uint16_t* ports, std::uint32_t n);
  // A data packet enters the switch: its path is recorded (ACKs retrace it in the full-switch variant),
  // the ingress adds the timestamp header, the egress switch strips it.
  void on_data_arrival(Packet* p);
  // The ACK of timestamped data packet p leaving the egress switch for its host, or null (no ACK: too
  // short a path, or lost by fault injection). The owner sends it (retraces() says how).
  Packet* make_ack(const Packet* p);
  bool retraces() const { return params_.variant == FlowcutVariant::full_switch; }
  // A Flowcut ACK arrives at this switch: true when it ends here (the owner frees it).
  bool on_ack_packet(Packet* a);
  void poll_fgfc() {
    fgfc_poll_pending_ = false;
    emit_fgfc_frames();
  }

 private:
  std::uint16_t follow(Packet* p, std::uint32_t index);  // a tracked packet on an existing entry
  bool start_flowcut(Packet* p, const WideKey& key, const std::uint16_t* ports, std::uint32_t n, std::uint16_t& o);
  void hold(Packet* p) {
    held_.push_back(p);
    ++counters_.held_packets;
  }
  void retry_held();
  void refresh_drain(std::uint32_t index, const FlowcutSource& s);
  void begin_drain(std::uint32_t index, const FlowcutSource& s);
  void end_drain(const FlowcutSource& s);
  void entry_freed() {
    note_occupancy();
    if (site_ == FlowcutSite::switch_asic) retry_held();
  }
  void note_occupancy() { occupancy_time_.at(fabric_.now(), table_->occupancy(), fabric_.stats_window()); }
  void send_fgfc(const FlowcutSource& s, bool xoff);
  void emit_fgfc_frames();

  const FlowcutParams& params_;
  FlowcutSite site_;
  FlowcutOwner& owner_;
  Fabric& fabric_;
  const RoutingContext* ctx_;
  Ps clock_ps_;
  std::unique_ptr<FlowcutTableIf> table_;
  RttMonitor rtt_;
  std::vector<std::uint32_t> shadow_;   // untracked in-flight bytes by flow hash (or NIC flow id)
  std::vector<std::uint32_t> epoch_;    // per entry
  std::vector<std::uint32_t> packets_;  // per entry: packets in flight (what early resume is about)
  std::vector<Ps> drain_since_;                 // per entry: when its drain started (or was renewed)
  std::vector<std::uint8_t> drain_refreshes_;   // per entry: XOFFs sent again for this drain
  std::vector<std::uint8_t> pinned_;  // per entry (old_path): its source timed out, it keeps its path undrained
  std::uint32_t next_epoch_ = 0;
  std::deque<Packet*> held_;
  std::unique_ptr<FgfcGeneratorIf> fgfc_;
  std::unordered_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> fgfc_dest_;  // flow id -> host, flow
  bool fgfc_poll_pending_ = false;
  FlowcutCounters counters_;
  // For sizing: how long the table held each occupancy (ps), and how long a packet held state here (ns:
  // from passing this table's owner to its ACK's return, at the flow's first table: eq. 1's L, measured).
  TimeWeighted occupancy_time_;
  LogHistogram hold_ns_;
};

}  // namespace netasic
