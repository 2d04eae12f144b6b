// End-to-end transports as components (htsim's source/sink shape): each transport is one class with a
// sender side (what a flow may send next, an ACK/NACK arriving, a retransmission timeout) and a receiver
// side (a data packet arriving). The NIC shell keeps timing, its links, the control queue, the round-robin
// over active flows, packet building and transmission, and asks its transport at one point for each event.
// A transport owns its per-flow state (indexed by the flow's slot at this NIC, allocated when the flow is
// registered: nothing per packet) and its congestion control strategy. make_transport picks the class for
// nic.transport from a registry: a new transport is one class and one registry line.
#pragma once

#include "tlm/model/packet_ring.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tlm/blocks/tcp_reno.h"
#include "tlm/model/congestion_control.h"
#include "tlm/model/fabric.h"
#include "tlm/model/flow.h"
#include "tlm/model/packet.h"
#include "tlm/model/report.h"

namespace netasic {

// One bit per packet of a flow (acknowledged, received), stored only up to the highest packet set so far:
// a flow's memory grows with what it has sent, not with its size, so a huge flow under a short time limit
// costs nothing up front. Bits never set read as false.
//
// Two bounds kept beside the storage answer most reads without it: every bit below `low_` is set (the set
// prefix) and none at or above `high_`. A flow whose packets come in order only moves the prefix and never
// touches its storage, which is a line of memory elsewhere: on a large fabric that line came from memory at
// most of a NIC's data arrivals and acknowledgements. The storage holds every bit set in [low_, high_).
class PacketBits {
 public:
  bool operator[](std::uint32_t i) const {
    if (i < low_) return true;
    if (i >= high_) return false;
    return bits_[i];
  }
  void set(std::uint32_t i, std::uint32_t limit) {
    if (i < low_) return;
    if (i == low_ && high_ == low_) {  // in order, nothing set above: the prefix grows
      high_ = ++low_;
      return;
    }
    if (i >= bits_.size()) bits_.resize(std::min<std::size_t>(limit, std::max<std::size_t>(i + 1, bits_.size() * 2)), false);
    bits_[i] = true;
    if (i >= high_) high_ = i + 1;
    while (low_ < high_ && bits_[low_]) ++low_;
  }

 private:
  std::uint32_t low_ = 0;   // bits [0, low_) are set
  std::uint32_t high_ = 0;  // bits [high_, ...) are not
  std::vector<bool> bits_;  // bits in [low_, high_), by index
};

// The end-to-end transport every flow of the run uses (nic.transport).
enum class TransportKind : std::uint8_t { basic, reorder, go_back_n, selective_repeat, tcp };

struct NicConfig;
struct NicCounters;
class ReorderBufferIf;

// The NIC's two virtual channels: ACK/NACKs and other control packets go first.
constexpr std::uint8_t kNicControlVc = 0;
constexpr std::uint8_t kNicDataVc = 1;
// The NIC's event for a pacing wake-up (NicContext::wake_at); its data is the wake-up time.
constexpr std::uint32_t kNicPaceEvent = 6;
// The NIC's event for a telemetry probe round's deadline (routing.policy = telemetry); its data is the flow.
constexpr std::uint32_t kNicTelemetryEvent = 7;
class SackReceiver;

// What a transport may use of its NIC (plain references, no virtual calls): time and the packet pool, the
// flows, the configuration and counters, the control queue (ACK/NACKs leave through it at control
// priority) and the list of flows with packets to send.
struct NicContext {
  Fabric& fabric;
  FlowTable& flows;
  const NicConfig& config;
  NicCounters& counters;
  PacketRing& control;
  std::vector<std::uint32_t>& active;
  const char* name;
  EventTarget* owner;  // the NIC: pacing wake-ups (wake_at) are its events
  Ps pace_wake = 0;    // the earliest pacing wake-up pending, 0 when none

  Ps now() const { return fabric.now(); }
  // A paced flow may send at `at`: the NIC tries to send then (one pending wake-up, the earliest).
  void wake_at(Ps at);
  std::uint32_t payload_of(const Flow& f, std::uint32_t psn) const;  // only the last packet is short
  void activate(const Flow& f);                                      // back on the scheduler's list
  void complete_if_delivered(Flow& f);  // records the finish when the last byte is delivered in order
  // A new control packet of the flow from its destination to its source, or null (counted) when the
  // control queue is full.
  Packet* new_control(const Flow& f, PacketType type, std::uint32_t sn);
  // Order statistics of an arrival `degree` positions beyond the expected one (0: in order), late when a
  // higher PSN came first.
  void count_order(Flow& f, std::uint32_t psn, std::uint32_t degree);
  void count_duplicate(Flow& f);
  // A data packet arrived: counted, and its bytes counted as waste when it is a resend.
  void count_arrival(const Packet* p);
  // The application takes packet psn; anything but the next in sequence (`app_next`) is counted (it must
  // stay 0).
  void deliver_to_application(Flow& f, std::uint32_t& app_next, std::uint32_t psn);
};

// What a flow may send next (Transport::next).
struct SendChoice {
  enum Kind : std::uint8_t { done, blocked, ready } kind = blocked;  // done: everything sent once
  bool resend = false;        // from the resend queue (NACKed or presumed lost)
  bool injection_ok = true;   // injection control lets it go (checked after the NIC's own may_send)
  std::uint32_t psn = 0;
  std::uint32_t payload = 0;
};

class Transport : public Reporting {
 public:
  Transport(NicContext& ctx, bool per_packet_acks);
  ~Transport() override;

  // Setup: a flow this NIC sends (f.tx_slot set), one it receives (f.rx_slot set), every flow known.
  virtual void add_flow(Flow& f) = 0;
  virtual void add_incoming_flow(Flow& f) = 0;
  virtual void finish_setup() {}

  // Receiver side: a data packet of the flow; the transport takes the packet. True when the NIC should
  // try to send (a control packet may be queued).
  bool receive_data(Flow& f, Packet* p) {
    if (cc_) cc_->on_data(f, p);  // every arrival counts, even one the transport drops
    return on_data(f, p);
  }
  // Sender side: an ACK/NACK of the flow (the NIC frees it); a retransmission timeout with no progress.
  void receive_ack(Flow& f, const Packet* p) {
    const std::uint32_t una = on_ack(f, p);
    if (cc_) cc_->on_ack(f, p, una);
  }
  void timeout(Flow& f) {
    if (cc_) cc_->on_timeout(f);
    on_timeout(f);
  }
  // Sender side: the flow moved to another path (telemetry routing); its congestion control restarts.
  void path_changed(const Flow& f) {
    if (cc_) cc_->on_path_change(f);
  }
  // Sender side: a CNP of the flow arrived (rate-based control); a data packet of `wire_bytes` went.
  void receive_cnp(Flow& f) {
    if (cc_) cc_->on_cnp(f);
  }
  void paced_send(const Flow& f, std::uint32_t wire_bytes) {
    if (paced_) cc_->on_send(f, wire_bytes);
  }
  // Sender side: what the flow may send next (resend queue first, then new data, within the window), and
  // the bookkeeping once the NIC has built and sent it.
  virtual SendChoice next(Flow& f) = 0;
  virtual void on_sent(Flow& f, const SendChoice& c) = 0;
  // The NIC's prefetch hook: a packet of flow `f` is coming up, an ACK/NACK (sender side) or data
  // (receiver side). Bring in the flow's state. Reads only.
  virtual void prefetch_flow(const Flow& /*f*/, bool /*sender*/) const {}

  // NIC-only Flowcut counts the bytes of every packet's own ACK: only a transport that acknowledges each
  // packet by itself feeds it.
  bool per_packet_acks() const { return per_packet_acks_; }
  bool ecn_capable() const { return cc_ != nullptr; }  // data packets carry ECT
  const CongestionControl* congestion_control() const { return cc_.get(); }

  // Reporting: the transport's own section of summary.json (go_back_n, selective_repeat, reorder) from
  // this NIC's counters; none for the basic transport. The congestion control reports for itself.
  void report(Report&) const override {}
  // For tests and tools.
  virtual const ReorderBufferIf* reorder_buffer() const { return nullptr; }
  virtual const std::vector<std::uint64_t>& reorder_histogram() const;  // empty but for the reorder transport
  virtual const SackReceiver* sack_receiver(const Flow&) const { return nullptr; }
  virtual const TcpReno* tcp_window(const Flow&) const { return nullptr; }  // the tcp transport's sender
  virtual std::string sender_detail(const Flow& f) const;  // an unfinished flow's sender state

 protected:
  virtual bool on_data(Flow& f, Packet* p) = 0;
  virtual std::uint32_t on_ack(Flow& f, const Packet* p) = 0;  // returns the cumulative point
  virtual void on_timeout(Flow& f) = 0;

  // A cumulative ACK/NACK of the flow, with the congestion echo, into the control queue.
  void send_control(const Flow& f, PacketType type, std::uint32_t sn);
  // What every retransmitting transport reports in its section: bytes resent, spurious resends, and the
  // fraction of received bytes that did not help (duplicates, discarded packets, ACK/NACKs).
  void report_retransmissions(ReportSection& s) const;
  void echo(const Flow& f, Packet* ack) {
    if (cc_) cc_->echo(f, ack);
  }
  // The window (nic.window_bytes, capped by the congestion window) lets `payload` more bytes go.
  bool window_allows(const Flow& f, std::uint32_t payload) const;
  // Packet `psn` of the flow (a resend or a new one) with its payload: ready when the window lets it go.
  SendChoice window_choice(const Flow& f, std::uint32_t psn, bool resend) const {
    SendChoice c;
    c.resend = resend;
    c.psn = psn;
    c.payload = ctx_.payload_of(f, psn);
    c.kind = window_allows(f, c.payload) ? SendChoice::ready : SendChoice::blocked;
    return c;
  }
  // No progress for a whole timeout: the flow goes back to its first packet not in `acked`, nothing in flight.
  static void rewind(Flow& f, const PacketBits& acked) {
    std::uint32_t first = 0;
    while (first < f.packets && acked[first]) ++first;
    f.next_psn = first;
    f.inflight_bytes = 0;
  }
  // Every packet of the flow went once: the scheduler drops it (a NACK or a timeout brings it back).
  static SendChoice all_sent() {
    SendChoice c;
    c.kind = SendChoice::done;
    return c;
  }
  // A new packet (not a resend) went: the flow's send point moves on.
  static void advance(Flow& f, std::uint32_t psn) {
    if (psn >= f.sent_high) f.sent_high = psn + 1;
    ++f.next_psn;
  }

  NicContext& ctx_;
  std::unique_ptr<CongestionControl> cc_;
  bool paced_ = false;  // the controller is rate-based (cc_->paces())

 private:
  bool per_packet_acks_;
};

// ACK coalescing for the cumulative transports (nic.ack_every, nic.ack_delay_us; gbn and sr): an in-order
// packet's ACK waits until ack_every of them are waiting, the flow's last packet arrives, or ack_delay has
// passed since the first one waiting; then one cumulative ACK answers them all. Anything else (out of
// order, a duplicate, a hole filled) is answered at once, and that ACK takes the waiting ones with it.
// Off (every packet acknowledged, no state, no events) with ack_every 1.
class AckCoalescer : public EventTarget {
 public:
  using Flush = void (*)(void* owner, Flow& f);  // sends the flow's cumulative ACK now
  AckCoalescer(NicContext& ctx, void* owner, Flush flush) : ctx_(ctx), owner_(owner), flush_(flush) {}
  bool on() const;
  void add_flow(const Flow& f) {
    if (on() && f.rx_slot >= rx_.size()) rx_.resize(f.rx_slot + 1);
  }
  // An in-order packet of f arrived: true when its ACK goes now.
  bool in_order(const Flow& f);
  bool waiting(const Flow& f) const { return on() && rx_[f.rx_slot].packets > 0; }
  // An ACK of f goes now for another reason: it answers the waiting packets too.
  void answered(const Flow& f) {
    if (on()) rx_[f.rx_slot] = Waiting{0, rx_[f.rx_slot].gen + 1};
  }
  void on_event(std::uint32_t kind, std::uint64_t data) override;  // ack_delay expired
  std::uint64_t delayed() const { return delayed_; }     // ACKs sent when ack_delay expired
  std::uint64_t coalesced() const { return coalesced_; }  // in-order packets whose ACK waited

 private:
  struct Waiting {
    std::uint32_t packets = 0;  // in-order packets not yet acknowledged
    std::uint32_t gen = 0;      // tells a pending timer from a stale one
  };
  NicContext& ctx_;
  void* owner_;
  Flush flush_;
  std::vector<Waiting> rx_;
  std::uint64_t delayed_ = 0, coalesced_ = 0;
};

// The registry: the transport for config.transport, holding the congestion control for config.cc.
std::unique_ptr<Transport> make_transport(NicContext& ctx);
// Every registered transport's scenario name and enumerator (the nic.transport key's choices).
std::vector<std::pair<const char*, TransportKind>> transport_choices();

// The registered transports (transport_basic.cpp, transport_sr.cpp, transport_reorder.cpp, transport_tcp.cpp).
std::unique_ptr<Transport> make_basic_transport(NicContext& ctx);
std::unique_ptr<Transport> make_go_back_n_transport(NicContext& ctx);
std::unique_ptr<Transport> make_selective_repeat_transport(NicContext& ctx);
std::unique_ptr<Transport> make_reorder_transport(NicContext& ctx);
std::unique_ptr<Transport> make_tcp_transport(NicContext& ctx);

}  // namespace netasic
