// The basic transport (every data packet acknowledged by itself, the ACK made of the data packet turned
// around; a timeout goes back to the first unacknowledged packet) and go-back-N (RoCE-like: the receiver
// takes only the expected packet, acknowledges cumulatively and NACKs a gap once; the source goes back to
// the NACKed packet).
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

namespace {

class BasicTransport final : public Transport {
 public:
  explicit BasicTransport(NicContext& ctx) : Transport(ctx, true) {}

  void add_flow(Flow& f) override {
    tx_.resize(f.tx_slot + 1);
    tx_[f.tx_slot].acked = PacketBits();
    if (cc_) cc_->add_sender(f);
  }
  void add_incoming_flow(Flow& f) override {
    rx_.resize(f.rx_slot + 1);
    rx_[f.rx_slot].received = PacketBits();
    if (cc_) cc_->add_receiver(f);
  }

  SendChoice next(Flow& f) override {
    const Sender& s = tx_[f.tx_slot];
    while (f.next_psn < f.packets && s.acked[f.next_psn]) ++f.next_psn;  // acknowledged after a rewind
    if (f.next_psn >= f.packets) return all_sent();
    return window_choice(f, f.next_psn, false);
  }
  void on_sent(Flow& f, const SendChoice& c) override {
    advance(f, c.psn);
    f.inflight_bytes += c.payload;
  }
  std::string sender_detail(const Flow& f) const override {
    return fmt::format(" (in order below {})", tx_[f.tx_slot].acked_upto);
  }

 protected:
  bool on_data(Flow& f, Packet* p) override;
  std::uint32_t on_ack(Flow& f, const Packet* p) override {
    Sender& s = tx_[f.tx_slot];
    const std::uint32_t psn = p->ack_psn;
    if (psn < f.packets && !s.acked[psn]) {
      s.acked.set(psn, f.packets);
      ++f.acked_count;
      f.inflight_bytes -= std::min<std::uint64_t>(f.inflight_bytes, p->ack_bytes);
      f.last_ack = ctx_.now();
      if (f.acked_count == f.packets) ctx_.flows.sender_finished(f);
    }
    // Acknowledged packet by packet: the cumulative point follows the acknowledged ones.
    while (s.acked_upto < f.packets && s.acked[s.acked_upto]) ++s.acked_upto;
    return s.acked_upto;
  }
  void on_timeout(Flow& f) override { rewind(f, tx_[f.tx_slot].acked); }
  void prefetch_flow(const Flow& f, bool sender) const override {
    if (sender) __builtin_prefetch(&tx_[f.tx_slot]);
    else __builtin_prefetch(&rx_[f.rx_slot]);
  }

 private:
  struct Sender {
    PacketBits acked;
    std::uint32_t acked_upto = 0;  // every PSN below is acknowledged
  };
  struct Receiver {
    PacketBits received;
  };
  std::vector<Sender> tx_;
  std::vector<Receiver> rx_;
};

bool BasicTransport::on_data(Flow& f, Packet* p) {
  NicCounters& n = ctx_.counters;
  ++n.data_packets_received;
  PacketBits& received = rx_[f.rx_slot].received;
  const std::uint32_t psn = p->psn;
  if (psn < f.expected_psn || received[psn]) {
    ctx_.count_duplicate(f);
  } else {
    ctx_.count_order(f, psn, psn - f.expected_psn);
    received.set(psn, f.packets);
    f.delivered_bytes += p->payload_bytes;
    n.payload_delivered += p->payload_bytes;
    while (f.expected_psn < f.packets && received[f.expected_psn]) ++f.expected_psn;
    ctx_.complete_if_delivered(f);
  }
  // Turn the packet into its ACK (no allocation): same flow, reversed direction, control priority.
  Packet* a = p;
  a->type = PacketType::ack;
  a->ack_psn = psn;
  a->ack_bytes = p->payload_bytes;
  a->echo_ts = p->t_sent;
  a->echo_hops = p->hops;
  std::swap(a->src_host, a->dst_host);
  a->payload_bytes = 0;
  a->size_bytes = ctx_.config.ack_bytes;
  a->hops = 0;
  a->global_hops = 0;
  a->went_down = 0;
  a->via_group = kNoSwitch;
  a->vc = kNicControlVc;
  a->ect = 0;
  a->ce = 0;
  echo(f, a);
  if (ctx_.control.full()) {
    ++n.control_dropped;
    ctx_.fabric.pool().put(a);
    return false;
  }
  ctx_.control.push_back(a);
  return true;
}

// ---- Go-back-N (RoCE-like) ----------------------------------------------------------------------------------

class GoBackNTransport final : public Transport {
 public:
  explicit GoBackNTransport(NicContext& ctx)
      : Transport(ctx, false), acks_(ctx, this, [](void* t, Flow& f) {
          static_cast<GoBackNTransport*>(t)->send_control(f, PacketType::ack, f.expected_psn - 1);
        }) {}

  void add_flow(Flow& f) override {
    tx_.resize(f.tx_slot + 1);
    if (cc_) cc_->add_sender(f);
  }
  void add_incoming_flow(Flow& f) override {
    rx_.resize(f.rx_slot + 1);
    acks_.add_flow(f);
    if (cc_) cc_->add_receiver(f);
  }

  SendChoice next(Flow& f) override {
    // Acknowledgements are cumulative: after a rewind, skip what was acknowledged meanwhile.
    const std::uint32_t acked_upto = tx_[f.tx_slot].acked_upto;
    while (f.next_psn < f.packets && f.next_psn < acked_upto) ++f.next_psn;
    if (f.next_psn >= f.packets) return all_sent();
    return window_choice(f, f.next_psn, false);
  }
  void on_sent(Flow& f, const SendChoice& c) override {
    advance(f, c.psn);
    f.inflight_bytes += c.payload;
  }
  std::string sender_detail(const Flow& f) const override {
    return fmt::format(" (in order below {})", tx_[f.tx_slot].acked_upto);
  }
  void report(Report& r) const override {
    ReportSection& s = r.open("go_back_n");
    s.sum("receiver_drops", ctx_.counters.receiver_drops);
    s.sum("nacks", ctx_.counters.nacks_sent);
    if (acks_.on()) {
      s.sum("acks_coalesced", acks_.coalesced());
      s.sum("acks_on_delay", acks_.delayed());
    }
    report_retransmissions(s);
  }

 protected:
  bool on_data(Flow& f, Packet* p) override;
  std::uint32_t on_ack(Flow& f, const Packet* p) override;
  void on_timeout(Flow& f) override {
    // No progress for a whole timeout: go back to the first unacknowledged packet.
    f.next_psn = std::min(tx_[f.tx_slot].acked_upto, f.packets);
    f.inflight_bytes = 0;
  }

 private:
  struct Sender {
    std::uint32_t acked_upto = 0;  // every PSN below is acknowledged (and none above)
  };
  struct Receiver {
    std::uint32_t nacked = 0xffffffffu;  // the expected PSN already NACKed
  };
  std::vector<Sender> tx_;
  std::vector<Receiver> rx_;
  AckCoalescer acks_;
};

bool GoBackNTransport::on_data(Flow& f, Packet* p) {
  NicCounters& n = ctx_.counters;
  ctx_.count_arrival(p);
  const std::uint32_t psn = p->psn;
  if (psn == f.expected_psn) {
    // In order: delivered at once, acknowledged cumulatively.
    f.delivered_bytes += p->payload_bytes;
    n.payload_delivered += p->payload_bytes;
    ++f.expected_psn;
    f.highest_psn = std::max(f.highest_psn, psn + 1);
    ctx_.complete_if_delivered(f);
    if (acks_.in_order(f)) send_control(f, PacketType::ack, psn);
  } else if (psn > f.expected_psn) {
    // Out of order: dropped. One NACK per gap asks the source to go back to the expected PSN.
    ++f.ooo_packets;
    ++n.ooo_packets;
    f.max_ooo_degree = std::max(f.max_ooo_degree, psn - f.expected_psn);
    n.max_ooo_degree = std::max(n.max_ooo_degree, psn - f.expected_psn);
    ++n.receiver_drops;
    std::uint32_t& nacked = rx_[f.rx_slot].nacked;
    if (acks_.waiting(f)) {
      acks_.answered(f);  // what waited is acknowledged before the NACK
      send_control(f, PacketType::ack, f.expected_psn - 1);
    }
    if (nacked != f.expected_psn) {
      nacked = f.expected_psn;
      ++n.nacks_sent;
      send_control(f, PacketType::nack, f.expected_psn);
    }
  } else {
    // A duplicate of a delivered packet: acknowledge what has been delivered.
    ctx_.count_duplicate(f);
    acks_.answered(f);
    send_control(f, PacketType::ack, f.expected_psn - 1);
  }
  ctx_.fabric.pool().put(p);
  return true;
}

std::uint32_t GoBackNTransport::on_ack(Flow& f, const Packet* p) {
  NicCounters& n = ctx_.counters;
  n.received_bytes += p->size_bytes;
  n.waste_bytes += p->size_bytes;
  std::uint32_t& acked_upto = tx_[f.tx_slot].acked_upto;
  const std::uint32_t sn = p->ack_psn;
  if (p->type == PacketType::ack) {
    if (sn < f.packets && sn + 1 > acked_upto) {
      f.acked_count += sn + 1 - acked_upto;
      acked_upto = sn + 1;
      f.last_ack = ctx_.now();
      if (f.acked_count == f.packets) ctx_.flows.sender_finished(f);
    }
  } else if (sn < f.packets && sn >= acked_upto && sn < f.next_psn) {
    // NACK: everything from sn on is resent.
    f.next_psn = sn;
    ctx_.activate(f);
  }
  // In flight: the payload of PSNs sent beyond the last cumulative ACK (only the last packet is short).
  auto offset = [&](std::uint32_t psn) {
    return std::min<std::uint64_t>(f.size_bytes, std::uint64_t{psn} * ctx_.config.mtu_bytes);
  };
  f.inflight_bytes = f.next_psn > acked_upto ? offset(f.next_psn) - offset(acked_upto) : 0;
  return acked_upto;
}

}  // namespace

std::unique_ptr<Transport> make_basic_transport(NicContext& ctx) { return std::make_unique<BasicTransport>(ctx); }
std::unique_ptr<Transport> make_go_back_n_transport(NicContext& ctx) {
  return std::make_unique<GoBackNTransport>(ctx);
}

}  // namespace netasic
