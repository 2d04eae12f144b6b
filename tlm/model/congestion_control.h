// Congestion control as a strategy an end-to-end transport holds (nic.cc). The transport calls it at four
// points: a data packet arrives at the destination (its ECN counts), an ACK/NACK is built there (the counts
// echoed), an ACK/NACK arrives at the source (the window learns), and a retransmission timeout. The window
// it returns caps the bytes a flow may have in flight. Per-flow state lives here, indexed by the flow's
// slot at its source (tx_slot) or destination (rx_slot) NIC, allocated when the flow is registered.
// nic.cc = none is no controller at all (make_congestion_control returns null): the hot path stays a
// pointer test. A new controller (Swift-like, HPCC-like) is one class and one line in the registry.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tlm/blocks/dcqcn.h"
#include "tlm/blocks/dctcp.h"
#include "tlm/model/flow.h"
#include "tlm/model/packet.h"
#include "tlm/model/report.h"

namespace netasic {

struct NicConfig;
struct NicCounters;
struct NicContext;
enum class CongestionControlKind : std::uint8_t { none, dctcp, dcqcn };

class CongestionControl : public Reporting {
 public:
  virtual void add_sender(const Flow& f) = 0;    // f.tx_slot is this NIC's next sender slot
  virtual void add_receiver(const Flow& f) = 0;  // f.rx_slot is this NIC's next receiver slot
  // Destination: a data packet of the flow arrived (every arrival, even one the transport drops).
  virtual void on_data(const Flow& f, const Packet* p) = 0;
  // Destination: an ACK/NACK of the flow is about to leave; it carries the echo.
  virtual void echo(const Flow& f, Packet* ack) = 0;
  // Source: an ACK/NACK arrived and the transport has taken it; `una` is its cumulative point.
  virtual void on_ack(const Flow& f, const Packet* ack, std::uint32_t una) = 0;
  virtual void on_timeout(const Flow& f) = 0;
  // Source: the flow moved to another path (routing.policy = telemetry). A window restarts in slow start.
  virtual void on_path_change(const Flow&) {}
  virtual std::uint64_t window(const Flow& f) const = 0;  // bytes the flow may have in flight
  // A rate-based controller paces its flows: the source may not send before release_time(f), and tells the
  // controller of every data packet sent (on_send) and of every CNP received (on_cnp). paces() is fixed at
  // construction; the transport asks it once and skips these calls for a window-based controller.
  virtual bool paces() const { return false; }
  virtual Ps release_time(const Flow&) const { return 0; }
  virtual void on_send(const Flow&, std::uint32_t /*wire_bytes*/) {}
  virtual void on_cnp(const Flow&) {}
  // Reporting: the controller's congestion_control section of summary.json, from this NIC's senders.
  void report(Report&) const override {}
  // The DCTCP window of a flow this NIC sends, if the controller is DCTCP.
  virtual const Dctcp* dctcp(const Flow&) const { return nullptr; }
};

// DCTCP-like (Alizadeh et al., SIGCOMM 2010; tlm/blocks/dctcp.h): the destination echoes running counts of
// payload bytes received and of those with CE (AccECN-style), the source feeds their increments to its
// window.
class DctcpControl final : public CongestionControl {
 public:
  DctcpControl(const NicConfig& config, NicCounters& counters);
  void add_sender(const Flow& f) override;
  void add_receiver(const Flow& f) override;
  void on_data(const Flow& f, const Packet* p) override {
    Receiver& r = rx_[f.rx_slot];
    r.rx_bytes += p->payload_bytes;
    if (p->ce) r.ce_bytes += p->payload_bytes;
  }
  void echo(const Flow& f, Packet* ack) override;
  void on_ack(const Flow& f, const Packet* ack, std::uint32_t una) override;
  void on_timeout(const Flow& f) override { tx_[f.tx_slot].window.on_timeout(); }
  void on_path_change(const Flow& f) override { tx_[f.tx_slot].window.restart(); }
  std::uint64_t window(const Flow& f) const override { return tx_[f.tx_slot].window.window(); }
  const Dctcp* dctcp(const Flow& f) const override {
    return f.tx_slot < tx_.size() ? &tx_[f.tx_slot].window : nullptr;
  }
  void report(Report& r) const override;

 private:
  struct Sender {
    Dctcp window;
    std::uint32_t seen_rx_bytes = 0, seen_ce_bytes = 0;  // the receiver's counts last seen, modulo 2^32
    std::uint32_t acked_seen = 0;                        // acknowledged packets already fed to the window
  };
  struct Receiver {
    std::uint64_t rx_bytes = 0, ce_bytes = 0;  // data payload received (every arrival), and with CE
    std::uint64_t echoed_ce_bytes = 0;         // CE count at the previous echo (ECE when it moved)
  };
  const NicConfig& config_;
  NicCounters& counters_;
  std::vector<Sender> tx_;
  std::vector<Receiver> rx_;
  std::vector<std::uint32_t> tx_flow_;  // per sender slot: the flow (reporting; off the per-packet state)
};

// DCQCN-like (Zhu et al., SIGCOMM 2015; tlm/blocks/dcqcn.h), congestion_control_dcqcn.cpp.
std::unique_ptr<CongestionControl> make_dcqcn_control(NicContext& ctx);

// The registry: the controller for nic.cc (null for none).
std::unique_ptr<CongestionControl> make_congestion_control(NicContext& ctx);
// Every registered controller's scenario name and enumerator (the nic.cc key's choices).
std::vector<std::pair<const char*, CongestionControlKind>> congestion_control_choices();

}  // namespace netasic
