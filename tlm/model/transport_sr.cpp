// Selective repeat with direct data placement (nic.transport = sr): the destination writes every packet at
// its offset at once and answers each with a SACK (cumulative point and ranges above it); the source keeps a
// retransmission scoreboard, resends holes presumed lost (dupthresh packets sent later were acknowledged)
// before new data, and at a timeout everything in flight.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tlm/blocks/selective_repeat.h"
#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

namespace {

class SelectiveRepeatTransport final : public Transport {
 public:
  explicit SelectiveRepeatTransport(NicContext& ctx)
      : Transport(ctx, false), acks_(ctx, this, [](void* t, Flow& f) {
          auto* sr = static_cast<SelectiveRepeatTransport*>(t);
          const SackReceiver& rx = sr->rx_[f.rx_slot].rx;
          sr->send_sack(f, rx, rx.cumulative() - 1);
        }) {}

  void add_flow(Flow& f) override {
    tx_.emplace_back(f.packets, ctx_.config.sr_dupthresh);
    if (cc_) cc_->add_sender(f);
  }
  void add_incoming_flow(Flow& f) override {
    rx_.emplace_back();
    acks_.add_flow(f);
    if (cc_) cc_->add_receiver(f);
  }

  SendChoice next(Flow& f) override {
    Sender& s = tx_[f.tx_slot];
    // A hole presumed lost goes before new data; those acknowledged meanwhile are dropped.
    while (!s.resend.empty() && (*s.resend.begin() < s.tx.cumulative() || s.acked[*s.resend.begin()]))
      s.resend.erase(s.resend.begin());
    if (!s.resend.empty()) return window_choice(f, *s.resend.begin(), true);
    while (f.next_psn < f.packets && s.acked[f.next_psn]) ++f.next_psn;
    if (f.next_psn >= f.packets) return all_sent();
    return window_choice(f, f.next_psn, false);
  }
  void on_sent(Flow& f, const SendChoice& c) override {
    Sender& s = tx_[f.tx_slot];
    if (c.resend) s.resend.erase(s.resend.begin());
    else advance(f, c.psn);
    s.tx.sent(c.psn, c.payload);
    f.inflight_bytes = s.tx.inflight_bytes();
  }
  const SackReceiver* sack_receiver(const Flow& f) const override {
    return f.rx_slot < rx_.size() ? &rx_[f.rx_slot].rx : nullptr;
  }
  std::string sender_detail(const Flow& f) const override {
    const Sender& s = tx_[f.tx_slot];
    return fmt::format(" (in order below {}), {} to resend", s.tx.cumulative(), s.resend.size());
  }
  void report(Report& r) const override;

 protected:
  bool on_data(Flow& f, Packet* p) override;
  std::uint32_t on_ack(Flow& f, const Packet* p) override;
  void on_timeout(Flow& f) override {
    // No progress for a whole timeout (a lost tail, or a lost resend with too little sent after it):
    // everything in flight is presumed lost and resent.
    Sender& s = tx_[f.tx_slot];
    lost_.clear();
    s.tx.on_timeout(lost_);
    for (const std::uint32_t psn : lost_) s.resend.insert(psn);
    ctx_.counters.timeout_retransmits += lost_.size();
    f.inflight_bytes = s.tx.inflight_bytes();
  }

 private:
  struct Sender {
    Sender(std::uint32_t packets, std::uint32_t dupthresh) : tx(packets, dupthresh) {}
    SrSender tx;                  // the retransmission scoreboard
    PacketBits acked;
    std::set<std::uint32_t> resend;  // presumed lost, lowest first
  };
  struct Receiver {
    SackReceiver rx;  // the placement scoreboard
    std::uint32_t app_next = 0;
  };
  void send_sack(const Flow& f, const SackReceiver& rx, std::uint32_t psn);

  std::vector<Sender> tx_;
  std::vector<Receiver> rx_;
  SrAckResult result_;               // reused per SACK (no allocation in steady state)
  std::vector<std::uint32_t> lost_;  // reused per timeout
  AckCoalescer acks_;                // declared last: its flush reads rx_
};

void SelectiveRepeatTransport::report(Report& r) const {
  const NicCounters& n = ctx_.counters;
  ReportSection& s = r.open("selective_repeat");
  s.set("dupthresh", ctx_.config.sr_dupthresh);
  s.set("sack_blocks", ctx_.config.sr_sack_blocks);
  s.sum("sacks", n.sacks_sent);
  s.sum("sack_ranges_sent", n.sack_blocks_sent);
  if (acks_.on()) {
    s.sum("acks_coalesced", acks_.coalesced());
    s.sum("acks_on_delay", acks_.delayed());
  }
  s.max("max_ranges_per_flow", std::uint64_t{0});
  for (const Receiver& rx : rx_) s.max("max_ranges_per_flow", std::uint64_t{rx.rx.max_ranges()});
  s.sum("fast_retransmits", n.fast_retransmits);
  s.sum("timeout_retransmits", n.timeout_retransmits);
  report_retransmissions(s);
}

bool SelectiveRepeatTransport::on_data(Flow& f, Packet* p) {
  ctx_.count_arrival(p);
  Receiver& r = rx_[f.rx_slot];
  const std::uint32_t psn = p->psn;
  const std::uint32_t before = r.rx.cumulative();
  if (!r.rx.place(psn)) {
    ctx_.count_duplicate(f);  // placed already: this transmission (or the one before it) was not needed
  } else {
    // Written at its offset at once; order as the packets arrive from the network.
    ctx_.count_order(f, psn, psn - before);
    // The application sees the bytes below the cumulative point, in order.
    for (std::uint32_t sn = before; sn < r.rx.cumulative(); ++sn) ctx_.deliver_to_application(f, r.app_next, sn);
    f.expected_psn = r.rx.cumulative();
    ctx_.complete_if_delivered(f);
    // The next in sequence, with nothing above it: its SACK may wait (nic.ack_every).
    if (psn == before && r.rx.cumulative() == before + 1 && !r.rx.has_ranges() && !acks_.in_order(f)) {
      ctx_.fabric.pool().put(p);
      return true;
    }
  }
  acks_.answered(f);
  send_sack(f, r.rx, psn);
  ctx_.fabric.pool().put(p);
  return true;
}

void SelectiveRepeatTransport::send_sack(const Flow& f, const SackReceiver& rx, std::uint32_t psn) {
  // One SACK per data packet: the cumulative point and the ranges above it.
  Packet* a = ctx_.new_control(f, PacketType::ack, rx.cumulative());
  if (!a) return;
  SackBlock blocks[Packet::kMaxSackBlocks];
  const std::size_t n = rx.blocks(psn, blocks, ctx_.config.sr_sack_blocks);
  a->sack_n = static_cast<std::uint8_t>(n);
  for (std::size_t b = 0; b < n; ++b) a->set_sack(b, blocks[b].start, blocks[b].end);
  a->size_bytes = ctx_.config.ack_bytes + static_cast<std::uint32_t>(8 * n);
  echo(f, a);
  ++ctx_.counters.sacks_sent;
  ctx_.counters.sack_blocks_sent += n;
  ctx_.control.push_back(a);
}

std::uint32_t SelectiveRepeatTransport::on_ack(Flow& f, const Packet* p) {
  NicCounters& c = ctx_.counters;
  c.received_bytes += p->size_bytes;
  c.waste_bytes += p->size_bytes;
  SackBlock blocks[Packet::kMaxSackBlocks];
  const std::size_t n = std::min<std::size_t>(p->sack_n, Packet::kMaxSackBlocks);
  for (std::size_t b = 0; b < n; ++b) blocks[b] = SackBlock{p->sack_start[b], p->sack_end(b)};
  Sender& s = tx_[f.tx_slot];
  result_.clear();
  s.tx.on_sack(p->ack_psn, blocks, n, result_);
  for (const std::uint32_t psn : result_.acked) {
    s.acked.set(psn, f.packets);
    ++f.acked_count;
  }
  if (!result_.acked.empty()) f.last_ack = ctx_.now();
  if (f.acked_count == f.packets) ctx_.flows.sender_finished(f);
  // Fast retransmit: each hole presumed lost goes before new data, lowest PSN first, without waiting for
  // the timeout.
  for (const std::uint32_t psn : result_.lost) s.resend.insert(psn);
  c.fast_retransmits += result_.lost.size();
  f.inflight_bytes = s.tx.inflight_bytes();
  if (!result_.lost.empty()) ctx_.activate(f);
  return s.tx.cumulative();
}

}  // namespace

std::unique_ptr<Transport> make_selective_repeat_transport(NicContext& ctx) {
  return std::make_unique<SelectiveRepeatTransport>(ctx);
}

}  // namespace netasic
