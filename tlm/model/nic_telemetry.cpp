#include "tlm/model/nic_telemetry.h"

#include "tlm/blocks/hash.h"
#include "tlm/model/nic.h"
#include "tlm/model/transport.h"

namespace netasic {

TelemetryNic::TelemetryNic(NicContext& ctx, const TelemetryConfig& config, std::uint64_t seed, bool switch_wait)
    : ctx_(ctx), config_(config), seed_(seed), switch_wait_(switch_wait) {}

void TelemetryNic::set_transport(Transport* t) {
  transport_ = t;
  cc_ = t ? t->congestion_control() : nullptr;
}

Ps TelemetryNic::ctx_now() const { return ctx_.now(); }
void TelemetryNic::wake(Ps at) { ctx_.wake_at(at); }

void TelemetryNic::add_flow(const Flow& f) {
  if (tx_.size() <= f.tx_slot) {
    tx_.reserve(f.tx_slot + 1);
    while (tx_.size() <= f.tx_slot) tx_.push_back(Source{PathSelector(config_, seed_, 0), 0, 0, 0, 0, 0});
    tx_flow_.resize(f.tx_slot + 1, 0);
  }
  // Each flow its own stream: its candidate ports and its probe choices.
  Source& s = tx_[f.tx_slot];
  s.sel = PathSelector(config_, seed_, 0x54454C0000000000ULL + f.id);
  s.port = s.sel.current_port();
  s.hash = hash_of(f, s.port);
  s.last_sent_port = s.port;
  tx_flow_[f.tx_slot] = f.id;
}

std::uint32_t TelemetryNic::hash_of(const Flow& f, std::uint16_t port) const {
  FlowKey k = f.key;
  k.src_port = port;
  const auto bytes = k.bytes();
  return crc32(bytes.data(), bytes.size());
}

void TelemetryNic::send_ptm(const Flow& f, std::uint16_t port) {
  if (ctx_.control.full()) {
    ++ctx_.counters.control_dropped;  // a PTM not sent is a PTM lost: the round's timeout covers it
    return;
  }
  Packet* m = ctx_.fabric.pool().get();
  m->type = PacketType::ptm;
  m->flow = f.id;
  m->src_host = f.src;
  m->dst_host = f.dst;
  m->key = f.key;
  m->key.src_port = port;
  m->flow_hash = hash_of(f, port);
  m->size_bytes = ctx_.config.ack_bytes;
  m->vc = kNicControlVc;
  ctx_.control.push_back(m);
  ++counters_.ptms_sent;
}

void TelemetryNic::arm(const Flow& f) {
  const PathSelector& sel = tx_[f.tx_slot].sel;
  if (sel.round_open()) ctx_.fabric.schedule(sel.deadline(), ctx_.owner, kNicTelemetryEvent, f.id);
}

void TelemetryNic::start(Flow& f) {
  Source& s = tx_[f.tx_slot];
  for (std::uint16_t port : s.sel.start(ctx_.now())) send_ptm(f, port);
  arm(f);
}

void TelemetryNic::note(Flow& f, bool switched, Ps old_delay) {
  if (!switched) return;
  Source& s = tx_[f.tx_slot];
  const Ps new_delay = s.sel.current_delay();
  if (switch_wait_ && old_delay > new_delay) s.hold_until = ctx_.now() + (old_delay - new_delay);
  s.port = s.sel.current_port();
  s.hash = hash_of(f, s.port);
  ++f.path_changes;
  ++counters_.path_switches;
  if (transport_) transport_->path_changed(f);
}

void TelemetryNic::on_data(Flow& f, Packet* p) {
  Source& s = tx_[f.tx_slot];
  p->key.src_port = s.port;
  p->flow_hash = s.hash;
  if (s.port != s.last_sent_port) ++s.sent_port_changes;
  s.last_sent_port = s.port;
  std::uint32_t cwnd_packets = 0;
  if (const CongestionControl* cc = cc_)
    if (const Dctcp* w = cc->dctcp(f)) cwnd_packets = static_cast<std::uint32_t>(w->window() / ctx_.config.mtu_bytes);
  const bool open = s.sel.round_open();
  std::uint16_t probe = 0;
  if (s.sel.on_data_sent(cwnd_packets, ctx_.now(), probe)) {
    send_ptm(f, probe);
    if (!open) arm(f);
  }
}

void TelemetryNic::on_ack(Flow& f, const Packet* ack) {
  if (f.tx_slot >= tx_.size()) return;
  // A switch here leaves a path whose delay is the one this ACK reflects.
  const Ps delay = Ps{ack->tm_delay_ns} * 1000;
  note(f, tx_[f.tx_slot].sel.on_ack_delay(ack->key.src_port, delay), delay);
}

void TelemetryNic::on_ptr(Flow& f, const Packet* ptr) {
  ++counters_.ptrs_received;
  counters_.ptr_delay_ns += ptr->ack_bytes;
  Source& s = tx_[f.tx_slot];
  const Ps before = s.sel.deadline();
  const Ps old_delay = s.sel.current_delay();
  note(f, s.sel.on_ptr(ptr->key.src_port, Ps{ptr->ack_bytes} * 1000, ctx_.now()), old_delay);
  if (s.sel.round_open() && s.sel.deadline() < before) arm(f);  // the first PTR brought the deadline to 3R
}

void TelemetryNic::on_time(Flow& f) {
  Source& s = tx_[f.tx_slot];
  const std::uint64_t before = s.sel.rounds_timed_out();
  const Ps old_delay = s.sel.current_delay();
  note(f, s.sel.on_time(ctx_.now()), old_delay);
  counters_.rounds_timed_out += s.sel.rounds_timed_out() - before;
}

void TelemetryNic::on_ptm(Flow& f, const Packet* ptm) {
  Packet* r = ctx_.new_control(f, PacketType::ptr, 0);
  if (!r) return;  // control queue full: counted; the source's round ends on its timeout
  r->key.src_port = ptm->key.src_port;  // which candidate this answers
  r->ack_bytes = ptm->tm_delay_ns;      // the forward path's accumulated queuing delay
  r->tm_delay_ns = 0;                   // the PTR's own, for the reverse path
  ctx_.control.push_back(r);
  ++counters_.ptrs_sent;
}

void TelemetryNic::report(Report& r) const {
  ReportSection& s = r.open("telemetry");
  s.sum("ptms_sent", counters_.ptms_sent);
  s.sum("ptrs_sent", counters_.ptrs_sent);
  s.sum("ptrs_received", counters_.ptrs_received);
  s.sum("path_switches", counters_.path_switches);
  s.sum("rounds_timed_out", counters_.rounds_timed_out);
  s.tally("ptr_delay_ns", counters_.ptr_delay_ns);
  s.tally("ptrs_received", counters_.ptrs_received);
  for (std::size_t slot = 0; slot < tx_.size(); ++slot)
    s.flow_value("path_switches", tx_flow_[slot], static_cast<double>(tx_[slot].sel.switches()));
  s.finish_with([](ReportSection& t) {
    const std::size_t n = t.flow_count("path_switches");
    t.set("path_switches_per_flow_avg", n ? t.flow_sum("path_switches") / static_cast<double>(n) : 0.0);
    const std::uint64_t ptrs = t.tally("ptrs_received");
    t.set("ptr_delay_avg_ns", ptrs ? static_cast<double>(t.tally("ptr_delay_ns")) / static_cast<double>(ptrs) : 0.0);
  });
}

}  // namespace netasic
