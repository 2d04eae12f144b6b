// Telemetry routing at the NIC (routing.policy = telemetry; Mizrahi et al., Section III). At the source, one
// PathSelector per flow (tlm/blocks/telemetry_path.h) picks the UDP source port every data packet carries
// and sends PTMs on candidate ports; at the destination, a PTM is answered with a PTR carrying its
// accumulated queuing delay, and each ACK reflects the delay of the flow's latest data packet with the port
// it came by. The NIC holds this component only under the telemetry policy (null otherwise).
#pragma once

#include <cstdint>
#include <vector>

#include "tlm/blocks/telemetry_path.h"
#include "tlm/model/flow.h"
#include "tlm/model/packet.h"
#include "tlm/model/report.h"

namespace netasic {

struct NicContext;
class CongestionControl;
class Transport;

struct TelemetryCounters {
  std::uint64_t ptms_sent = 0, ptrs_sent = 0, ptrs_received = 0, path_switches = 0, rounds_timed_out = 0;
  std::uint64_t ptr_delay_ns = 0;  // the forward delays the PTRs brought back, summed
};

class TelemetryNic {
 public:
  TelemetryNic(NicContext& ctx, const TelemetryConfig& config, std::uint64_t seed, bool switch_wait);

  void add_flow(const Flow& f);
  // Source: the flow starts (initial PTMs); a data packet is built (its path port, hash, delay field reset;
  // a PTM when one is due); an ACK reflects a delay; a PTR returns; a round's deadline.
  void start(Flow& f);
  void on_data(Flow& f, Packet* p);
  void on_ack(Flow& f, const Packet* ack);
  void on_ptr(Flow& f, const Packet* ptr);
  void on_time(Flow& f);
  // Destination: a data packet's delay and port, reflected in the flow's next ACKs; a PTM, answered.
  void on_arrival(Flow& f, const Packet* p) {
    f.tm_rx_delay_ns = p->tm_delay_ns;
    f.tm_rx_port = p->key.src_port;
  }
  void on_ptm(Flow& f, const Packet* ptm);
  // After a switch with routing.telemetry.switch_wait, the flow sends nothing until the old path's extra
  // queuing delay has passed (the paper's lossy rerouting): true while held, and the NIC is woken then.
  bool holds(const Flow& f) {
    const Ps until = tx_[f.tx_slot].hold_until;
    if (until <= ctx_now()) return false;
    wake(until);
    return true;
  }
  // The flow's transport: its controller's DCTCP window sets the PTM period max(cwnd, Delta3), and it learns
  // of every path switch (the window restarts in slow start).
  void set_transport(Transport* t);

  const PathSelector* selector(const Flow& f) const { return f.tx_slot < tx_.size() ? &tx_[f.tx_slot].sel : nullptr; }
  const TelemetryCounters& counters() const { return counters_; }
  // How often the flow's data packets, in the order they left, changed port: one per path switch when
  // the flow uses one path at a time (resends included).
  std::uint64_t sent_port_changes(const Flow& f) const { return tx_[f.tx_slot].sent_port_changes; }
  void report(Report& r) const;

 private:
  struct Source {
    PathSelector sel;
    std::uint32_t hash;  // flow hash of the 5-tuple with the current port
    std::uint16_t port;  // the port `hash` is for
    Ps hold_until;       // switch_wait: nothing leaves before this
    std::uint16_t last_sent_port;     // the port of the flow's previous data packet
    std::uint64_t sent_port_changes;  // data packets sent on another port than the previous one
  };
  Ps ctx_now() const;
  void wake(Ps at);
  std::uint32_t hash_of(const Flow& f, std::uint16_t port) const;
  void send_ptm(const Flow& f, std::uint16_t port);
  void note(Flow& f, bool switched, Ps old_delay);
  void arm(const Flow& f);

  NicContext& ctx_;
  const CongestionControl* cc_ = nullptr;
  Transport* transport_ = nullptr;
  TelemetryConfig config_;
  std::uint64_t seed_;
  bool switch_wait_;
  std::vector<Source> tx_;
  std::vector<std::uint32_t> tx_flow_;
  TelemetryCounters counters_;
};

}  // namespace netasic
