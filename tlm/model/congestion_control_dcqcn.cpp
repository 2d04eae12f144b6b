// DCQCN-like congestion control (nic.cc = dcqcn; Zhu et al., SIGCOMM 2015): the switches mark CE (the same
// marking as DCTCP, switch.ecn_threshold_bytes); the destination NIC, the notification point, answers a
// CE-marked data packet with a CNP, at most one per flow per nic.dcqcn.cnp_interval_us; the source NIC's
// reaction point (tlm/blocks/dcqcn.h) cuts the flow's rate on a CNP and recovers it on its timers and byte
// counter, and the flow is paced at that rate: a packet of s bytes holds the next one back by s / Rc.
// There is no window: only nic.window_bytes (when set) bounds the bytes in flight.
#include <algorithm>
#include <limits>

#include "tlm/model/congestion_control.h"
#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

namespace {

class DcqcnControl final : public CongestionControl {
 public:
  explicit DcqcnControl(NicContext& ctx) : ctx_(ctx) {}
  void add_sender(const Flow& f) override {
    if (tx_.size() <= f.tx_slot) {
      tx_.resize(f.tx_slot + 1, Sender{Dcqcn(ctx_.config.dcqcn_config), 0});
      tx_flow_.resize(f.tx_slot + 1, 0);
    }
    tx_flow_[f.tx_slot] = f.id;
  }
  void add_receiver(const Flow& f) override {
    if (rx_.size() <= f.rx_slot) rx_.resize(f.rx_slot + 1);
  }
  // The notification point: a CE mark brings a CNP unless one went less than the interval ago.
  void on_data(const Flow& f, const Packet* p) override {
    if (!p->ce) return;
    Receiver& r = rx_[f.rx_slot];
    const Ps now = ctx_.now();
    if (r.sent_any && now < r.last_cnp + ctx_.config.cnp_interval_ps) return;
    Packet* c = ctx_.new_control(f, PacketType::cnp, 0);
    if (!c) return;  // control queue full: counted by new_control
    r.sent_any = true;
    r.last_cnp = now;
    ++ctx_.counters.cnps_sent;
    ctx_.control.push_back(c);
  }
  void echo(const Flow&, Packet*) override {}
  void on_ack(const Flow&, const Packet*, std::uint32_t) override {}
  void on_timeout(const Flow&) override {}
  std::uint64_t window(const Flow&) const override { return std::numeric_limits<std::uint64_t>::max() / 2; }
  bool paces() const override { return true; }
  Ps release_time(const Flow& f) const override { return tx_[f.tx_slot].release; }
  void on_send(const Flow& f, std::uint32_t wire_bytes) override {
    Sender& s = tx_[f.tx_slot];
    const Ps now = ctx_.now();
    s.rp.advance(now);
    // Paced at the rate in force when the packet leaves: the next may go s / Rc later.
    const auto gap = static_cast<Ps>(static_cast<double>(wire_bytes) * 8000.0 / s.rp.rate_gbps());
    s.release = std::max(s.release, now) + gap;
    s.rp.on_sent(wire_bytes, now);
  }
  void on_cnp(const Flow& f) override {
    ++ctx_.counters.cnps_received;
    tx_[f.tx_slot].rp.on_cnp(ctx_.now());
  }
  void report(Report& r) const override;

 private:
  struct Sender {
    Dcqcn rp;
    Ps release;  // the flow's next packet may leave at this time
  };
  struct Receiver {
    Ps last_cnp = 0;
    bool sent_any = false;
  };
  NicContext& ctx_;
  std::vector<Sender> tx_;
  std::vector<Receiver> rx_;
  std::vector<std::uint32_t> tx_flow_;
};

// Per flow this NIC sends: its rate at the end and its lowest; CNPs sent and received; the parameters.
void DcqcnControl::report(Report& r) const {
  r.open("ecn");
  ReportSection& s = r.open("congestion_control");
  const DcqcnConfig& c = ctx_.config.dcqcn_config;
  s.set("type", "dcqcn");
  s.set("g", c.g);
  s.set("line_rate_gbps", c.line_rate_gbps);
  s.set("rai_gbps", c.rai_gbps);
  s.set("rhai_gbps", c.rhai_gbps);
  s.sum("cnps_sent", ctx_.counters.cnps_sent);
  s.sum("cnps_received", ctx_.counters.cnps_received);
  s.sum("rate_cuts", std::uint64_t{0});
  s.sum("rate_increases", std::uint64_t{0});
  s.min("rate_min_mbps", static_cast<std::uint64_t>(c.line_rate_gbps * 1000));
  for (std::size_t slot = 0; slot < tx_.size(); ++slot) {
    const Dcqcn& d = tx_[slot].rp;
    s.sum("rate_cuts", d.cuts());
    s.sum("rate_increases", d.increases());
    s.flow_value("rate", tx_flow_[slot], d.rate_gbps());
    s.min("rate_min_mbps", static_cast<std::uint64_t>(d.min_rate_seen_gbps() * 1000));
  }
  s.finish_with([](ReportSection& t) {
    const std::size_t senders = t.flow_count("rate");
    t.set("rate_final_avg_gbps", senders ? t.flow_sum("rate") / static_cast<double>(senders) : 0.0);
  });
}

}  // namespace

std::unique_ptr<CongestionControl> make_dcqcn_control(NicContext& ctx) { return std::make_unique<DcqcnControl>(ctx); }

}  // namespace netasic
