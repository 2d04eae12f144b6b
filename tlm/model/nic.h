// A NIC ASIC: splits messages into MTU packets with per-flow PSNs, injects at line rate round-robin over
// its flows within a per-flow window of bytes in flight, and completes a flow when its last byte is
// delivered in order (a packet whose PSN is not the expected one is out of order; its out-of-order degree
// is |PSN - expected|, as the Flowcut paper defines OOD). The NIC is a shell around its end-to-end
// transport (tlm/model/transport.h: basic, go-back-N, selective repeat, reorder engine), which decides
// what a flow sends next and what a data packet, an ACK/NACK or a timeout does; the NIC keeps timing, its
// links, the control queue, the round-robin, packet building, and FGFC/PAUSE reception (Flowcut's part in
// nic_flowcut.cpp). On lossy fabrics a flow that stops receiving ACKs for `rto_ps` asks its transport to
// recover, so nothing is lost silently.
#pragma once

#include <systemc>
#include <tlm>

#include "tlm/model/packet_ring.h"

#include <array>
#include <memory>
#include <vector>

#include "tlm/blocks/fgfc.h"
#include "tlm/blocks/flowcut_table.h"
#include "tlm/blocks/reorder_buffer.h"
#include "tlm/blocks/selective_repeat.h"
#include "tlm/common/rng.h"
#include "tlm/model/fabric.h"
#include "tlm/model/flowcut.h"
#include "tlm/model/flowcut_engine.h"
#include "tlm/model/flow.h"
#include "tlm/model/link.h"
#include "tlm/model/nic_telemetry.h"
#include "tlm/model/tlm_ports.h"
#include "tlm/model/transport.h"

namespace netasic {

class NicHost;

// The transport (TransportKind, tlm/model/transport.h) and the congestion control (CongestionControlKind,
// tlm/model/congestion_control.h) are chosen here once for every flow of the run.
struct NicConfig {
  std::uint32_t mtu_bytes = 4096;    // payload per packet
  std::uint32_t header_bytes = 64;   // per data packet
  std::uint32_t ack_bytes = 64;
  std::uint64_t window_bytes = 0;    // per flow; 0 = no limit
  Ps latency_ps = 0;                 // receive processing before an ACK leaves
  Ps rto_ps = 0;                     // 0 = no retransmission timer (lossless fabrics)
  std::uint32_t control_queue_packets = 1024;
  const FlowcutParams* flowcut = nullptr;  // set with routing.policy flowcut (any variant)
  TransportKind transport = TransportKind::basic;
  // Reorder transport (nic.transport = reorder).
  ReorderBufferConfig reorder_buffer{};    // connections = flows into this NIC (set per NIC)
  ReorderBufferFactory reorder_factory;    // empty: the C++ model (nic.reorder_buffer.impl)
  std::uint32_t reorder_unit_bytes = 256;
  enum class Injection { unlimited, adap_li, adap_lw } injection = Injection::adap_li;
  // nic.reorder.connection: one rearrange connection per message (flow), or per source-destination pair
  // with every message of the pair in one sequence space, sent in start order (the paper's connections).
  bool pair_connections = false;
  // Selective repeat with direct data placement (nic.transport = sr).
  std::uint32_t sr_dupthresh = 3;    // packets sent later and acknowledged before a hole is presumed lost
  std::uint32_t sr_sack_blocks = 3;  // ranges per SACK (at most Packet::kMaxSackBlocks)
  // ACK coalescing (gbn, sr): an in-order packet's ACK waits for ack_every of them, the flow's last packet,
  // or ack_delay_ps after the first one waiting (AckCoalescer, tlm/model/transport.h). 1 = every packet.
  std::uint32_t ack_every = 1;
  Ps ack_delay_ps = 0;
  TcpConfig tcp_config{};            // nic.transport = tcp (tlm/blocks/tcp_reno.h)
  // Congestion control (nic.cc = dctcp): data packets carry ECT, the source keeps a window per flow.
  CongestionControlKind cc = CongestionControlKind::none;
  DctcpConfig dctcp_config{};
  // nic.cc = dcqcn: the reaction point's parameters, and at most one CNP per flow per cnp_interval_ps.
  DcqcnConfig dcqcn_config{};
  Ps cnp_interval_ps = 50 * kPsPerUs;
  // routing.policy = telemetry: the source picks each flow's path (nic_telemetry.h).
  bool telemetry = false;
  TelemetryConfig telemetry_config{};
  bool telemetry_switch_wait = false;  // idle for the old path's extra delay after a switch
};

struct NicCounters {
  std::uint64_t data_packets_sent = 0;     // including resends
  std::uint64_t data_payload_sent = 0;     // payload bytes, including resends
  std::uint64_t resent_packets = 0;        // data packets put on the wire again
  std::uint64_t control_packets_sent = 0;
  std::uint64_t data_packets_received = 0;
  std::uint64_t payload_delivered = 0;     // unique payload bytes received
  std::uint64_t ooo_packets = 0;
  std::uint64_t late_packets = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t control_dropped = 0;       // control queue full (counted, never silent)
  std::uint32_t max_ooo_degree = 0;
  std::uint64_t fgfc_frames = 0;           // FGFC frames received
  std::uint64_t fgfc_class_fallbacks = 0;  // frames that found the paused-flow cache full: class paused
  std::uint64_t fgfc_timeouts = 0;         // paused flows that resumed on their period, without XON
  std::uint64_t pause_frames = 0;          // hop-by-hop PAUSE / RESUME frames received (switch.flow_control)
  std::uint64_t resume_frames = 0;
  // Reorder transport.
  std::uint64_t nacks_sent = 0;
  std::uint64_t receiver_drops = 0;       // go-back-N: packets dropped for not being the expected one
  std::uint64_t app_out_of_order = 0;
  std::uint64_t waste_bytes = 0;           // received resends and ACK/NACK packets
  std::uint64_t received_bytes = 0;        // every data and ACK/NACK byte received
  std::uint64_t resent_bytes = 0;          // size (header + payload) of the data packets sent again
  std::uint64_t spurious_resends = 0;      // data arrivals for a PSN already received: one transmission too many
  // Selective repeat.
  std::uint64_t fast_retransmits = 0;      // holes presumed lost from SACKs (queued for resending)
  std::uint64_t timeout_retransmits = 0;   // packets presumed lost at a retransmission timeout
  std::uint64_t sacks_sent = 0;
  std::uint64_t sack_blocks_sent = 0;
  // Congestion control.
  std::uint64_t ece_acks = 0;              // ACK/NACKs received whose ECE was set
  std::uint64_t cnps_sent = 0;             // DCQCN: CNPs this NIC sent as a destination
  std::uint64_t cnps_received = 0;         // DCQCN: CNPs this NIC received as a source
};

// What the NIC reads at every packet it sends or receives, in the three cache lines at the start of the
// object: the first holds the event target's vtable pointer (EventTarget is the NIC's first base), which
// the event loop brings in two events ahead of a NIC event, so the prefetch hook reads the links and the
// flow table without waiting; the hook brings in the other two. Spread through the object, these were
// lines that waited on memory on large fabrics (docs/performance.md, "The NIC's hot lines and the event
// queue's buckets").
struct NicHotState {
  NicHotState(Fabric& fabric, FlowTable& flows, Ps latency_ps, std::size_t control_packets,
              std::uint32_t data_credit_bytes)
      : flows_(flows), fabric_(fabric), latency_ps_(static_cast<std::uint32_t>(latency_ps)), control_(static_cast<std::uint32_t>(control_packets)),
        data_credit_bytes_(data_credit_bytes) {}
  // First line, after the vtable pointer; also all that a packet's delivery to the NIC reads (Nic::receive,
  // called by the sender's link: the receiver hint of the sending switch points here), and the number of
  // prefetch steps, which the prefetch hook reads first.
  Link* in_link_ = nullptr;
  Link* out_link_ = nullptr;
  Ps tx_free_at_ = 0;
  std::unique_ptr<Transport> transport_;  // made by the NIC's constructor (it refers to the NIC's members)
  FlowTable& flows_;
  Fabric& fabric_;
  std::uint32_t latency_ps_;  // nic.latency_ps (the constructor refuses one above 2^32 - 1 ps)
  bool deep_prefetch_ = false;  // fabric_.prefetch_steps() == 3, read at start_of_simulation
  // Second line.
  PacketRing control_;
  std::vector<std::uint32_t> active_;  // flows with packets left to send
  // Third line.
  std::uint32_t rr_ = 0;               // the active flow whose turn it is
  std::uint32_t data_credit_bytes_;    // the credit a data packet needs at most (MTU and header)
  bool tx_pending_ = false;
};

// The NIC-only Flowcut variant runs the one Flowcut engine at its NIC site, with the NIC as its
// FlowcutOwner (a drain pauses the flow in place, its end resumes it).
class alignas(64) Nic : public EventTarget,
                        private NicHotState,
                        public sc_core::sc_module,
                        public LinkSender,
                        private FlowcutOwner {
 public:
  InitiatorSocket out;
  TargetSocket in;

  Nic(const sc_core::sc_module_name& name, Fabric& fabric, const NicConfig& config, FlowTable& flows,
      std::uint32_t host, std::uint64_t seed);
  ~Nic() override { transport_.reset(); }  // before the context it refers to

  void attach(Link* in_link, Link* out_link);
  // Registers a flow this NIC sends; it starts at flow.start.
  void add_flow(std::uint32_t flow_id);
  // A flow that waited for others (FlowTable dependencies) starts at `at`.
  void release_flow(std::uint32_t flow_id, Ps at);
  // Registers a flow this NIC receives, after its source registered it (the reorder transport gives it a
  // rearrange connection).
  void add_incoming_flow(std::uint32_t flow_id);
  // Completes the transport's setup once every flow is known (the reorder transport's rearrange buffer).
  void finish_setup() { transport_->finish_setup(); }
  const Transport& transport() const { return *transport_; }
  const ReorderBufferIf* reorder_buffer() const { return transport_->reorder_buffer(); }
  const std::vector<std::uint64_t>& reorder_histogram() const { return transport_->reorder_histogram(); }

  const NicCounters& counters() const { return counters_; }
  const FlowcutTableIf* flowcut_table() const { return flowcut_ ? &flowcut_->table() : nullptr; }
  const FlowcutCounters& flowcut_counters() const { return flowcut_ ? flowcut_->counters() : kNoFlowcut; }
  const FgfcCache* fgfc_cache() const { return fgfc_cache_.get(); }
  const TelemetryNic* telemetry() const { return telemetry_.get(); }
  // Every mechanism of this NIC reports its statistics (tlm/model/report.h): the transport, its congestion
  // control, the Flowcut engine (NIC-only variant); then what the NIC received of the switches' mechanisms
  // (FGFC frames for Flowcut, PAUSE / RESUME for egress flow control), written when those are in use.
  void report(Report& r) const {
    r.enter(name());
    transport_->report(r);
    if (const CongestionControl* cc = transport_->congestion_control()) cc->report(r);
    if (flowcut_) flowcut_->report(r);
    if (telemetry_) telemetry_->report(r);
    ReportSection& fc = r.section("flowcut");
    fc.sum("fgfc_frames/received_by_nics", counters_.fgfc_frames);
    fc.sum("fgfc_frames/class_pause_fallbacks", counters_.fgfc_class_fallbacks);
    fc.sum("fgfc_frames/resumed_on_period_expiry", counters_.fgfc_timeouts);
    ReportSection& hop = r.section("flow_control");
    hop.sum("frames_received_by_nics/pause", counters_.pause_frames);
    hop.sum("frames_received_by_nics/resume", counters_.resume_frames);
  }
  std::uint32_t host() const { return host_; }
  // The host interface (nic.host_interface, tlm/model/nic_host.h): data packets of its messages carry bytes.
  void set_host(NicHost* h) { host_if_ = h; }
  // Per-flow events no wire shows (source holds, NIC-only flowcuts) go to `o` (the packet trace).
  void set_flow_observer(FlowEventObserver* o) { flow_observer_ = o; }

  void on_event(std::uint32_t kind, std::uint64_t data) override;
  void start_of_simulation() override {  // bindings are complete
    out_fw_ = out.operator->();
    foreign_.bind(out_fw_, &fabric_);
    deep_prefetch_ = fabric_.prefetch_steps() == 3;
  }
  void prefetch(std::uint32_t kind, std::uint64_t data, unsigned step) const override;
  void prefetch_delivery_deep(const Packet* p, bool of_flow, bool ack, unsigned level) const;  // three steps
  void prefetch_hot_lines() const {
    __builtin_prefetch(&control_);
    __builtin_prefetch(&rr_);
  }
  // Both lines of a flow's record and the transport object, what the step after asks the transport for.
  // Always inlined, as a function of prefetches alone may otherwise be dropped.
  [[gnu::always_inline]] inline void prefetch_flow_record(const Flow& f) const {
    __builtin_prefetch(&f);
    __builtin_prefetch(reinterpret_cast<const char*>(&f) + 64);
    __builtin_prefetch(transport_.get());
  }
  Ps event_packet_sent(std::uint32_t kind, std::uint64_t data) const override {
    return kind == kReceive ? reinterpret_cast<const Packet*>(data)->t_sent : kNever;
  }
  void on_credit(std::uint16_t port) override;

 private:
  enum Event : std::uint32_t { kFlowStart = 1, kTxDone = 2, kReceive = 3, kTimeout = 4, kFgfcExpire = 5,
                               kPace = kNicPaceEvent, kTelemetry = kNicTelemetryEvent };
  friend class PortTarget<Nic>;
  void receive(std::uint16_t, Packet* p, Ps delay);
  const void* rx_hint(std::uint16_t) const { return &latency_ps_; }  // the first line
  PortTarget<Nic> fw_{this, 0};
  NoBackwardPath bw_;
  void deliver(Packet* p);
  void receive_data(Packet* p);
  void receive_ack(Packet* p);
  void try_send();
  [[gnu::always_inline]] inline void transmit(Packet* p, Ps start);  // inline in try_send, its one caller
  Packet* next_data_packet();
  Packet* build_data_packet(Flow& f, const SendChoice& c);
  void arm_timer(Flow& f, Ps at);
  void on_timeout(std::uint32_t flow_id);
  void receive_pause(Packet* p);
  // Flowcut at the source NIC (nic_flowcut.cpp).
  void receive_fgfc(Packet* p);
  void fgfc_expire(Flow& f);
  bool may_send(Flow& f, std::uint32_t payload);  // FGFC pause / credit, NIC-only drain and hold
  void hold(Flow& f, FlowHold why);  // the source holds the flow from now (FGFC, class fallback, drain)
  // The flow `flow_id` of class `tclass` is no longer paused (XON): it stops holding its class, which stays
  // paused only while another flow that fell back to it is still paused.
  void end_class_fallback(unsigned tclass, std::uint32_t flow_id, std::uint64_t now);
  void resume(Flow& f, bool timeout);
  void nic_flowcut_send(Flow& f, Packet* p);
  void nic_flowcut_ack(Flow& f, const Packet* ack);
  // FlowcutOwner (NIC site): the RTT's transmission term, and a drain's pause and resume of flow s.flow.
  Ps ack_transmission_term(std::uint16_t out_port, std::uint32_t ack_bytes, unsigned hops) const override;
  void pause_source(const FlowcutSource& s) override;
  void resume_source(const FlowcutSource& s) override;
  static const FlowcutCounters kNoFlowcut;
  std::uint64_t now_us() const { return fabric_.now() / kPsPerUs; }

  NicConfig config_;
  FlowEventObserver* flow_observer_ = nullptr;
  NicHost* host_if_ = nullptr;
  std::uint32_t host_;
  PacketFwIf* out_fw_ = nullptr;  // what `out` is bound to (looked up at the start of simulation)
  ForeignTarget foreign_;         // `out` bound to something other than its link
  NicCounters counters_;
  // Flowcut: the FGFC paused-flow cache (switch variants), or the engine (NIC-only variant).
  std::unique_ptr<FgfcCache> fgfc_cache_;
  std::vector<std::uint64_t> class_paused_until_;  // per traffic class, microseconds (cache fallback)
  // Per traffic class: the flows whose XOFF found the cache full, each with the end of its period. The class
  // is paused until the last of them is resumed (XON) or its period ends.
  struct ClassFallback {
    std::uint32_t flow_id;
    std::uint64_t until;
  };
  std::vector<std::vector<ClassFallback>> class_fallbacks_;
  std::array<bool, 8> pfc_paused_{};  // per traffic class: PFC PAUSE received, no RESUME yet
  std::unique_ptr<FlowcutEngine> flowcut_;
  Rng rng_;
  // The transport and what it may use of this NIC (declared last: it refers to the members above).
  std::uint32_t tx_slots_ = 0, rx_slots_ = 0;  // flows this NIC sends, receives
  NicContext ctx_;
  std::unique_ptr<TelemetryNic> telemetry_;  // routing.policy = telemetry
};

}  // namespace netasic
