#include "tlm/model/transport.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "tlm/common/error.h"
#include "tlm/model/nic.h"

namespace netasic {

std::uint32_t NicContext::payload_of(const Flow& f, std::uint32_t psn) const {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(config.mtu_bytes, f.size_bytes - std::uint64_t{psn} * config.mtu_bytes));
}

void NicContext::activate(const Flow& f) {
  if (std::find(active.begin(), active.end(), f.id) == active.end()) active.push_back(f.id);
}

void NicContext::wake_at(Ps at) {
  if (pace_wake != 0 && pace_wake <= at) return;
  pace_wake = at;
  fabric.schedule(at, owner, kNicPaceEvent, at);
}

void NicContext::complete_if_delivered(Flow& f) {
  if (f.expected_psn == f.packets && !f.done()) {
    f.finish = fabric.now();
    flows.delivered(f, f.finish);
    if (flows.mark_completed()) fabric.request_stop();
  }
}

Packet* NicContext::new_control(const Flow& f, PacketType type, std::uint32_t sn) {
  if (control.full()) {
    ++counters.control_dropped;
    return nullptr;
  }
  Packet* a = fabric.pool().get();
  a->type = type;
  a->flow = f.id;
  a->src_host = f.dst;
  a->dst_host = f.src;
  a->key = f.key;
  a->flow_hash = f.hash;
  a->ack_psn = sn;
  a->size_bytes = config.ack_bytes;
  a->vc = kNicControlVc;
  return a;
}

void NicContext::count_order(Flow& f, std::uint32_t psn, std::uint32_t degree) {
  if (degree > 0) {
    ++f.ooo_packets;
    ++counters.ooo_packets;
    f.max_ooo_degree = std::max(f.max_ooo_degree, degree);
    counters.max_ooo_degree = std::max(counters.max_ooo_degree, degree);
  }
  if (psn + 1 < f.highest_psn) {
    ++f.late_packets;
    ++counters.late_packets;
  }
  f.highest_psn = std::max(f.highest_psn, psn + 1);
}

void NicContext::count_duplicate(Flow& f) {
  ++f.duplicates;
  ++counters.duplicates;
  ++counters.spurious_resends;
}

void NicContext::deliver_to_application(Flow& f, std::uint32_t& app_next, std::uint32_t psn) {
  if (psn != app_next) ++counters.app_out_of_order;
  app_next = psn + 1;
  const std::uint64_t payload = payload_of(f, psn);
  f.delivered_bytes += payload;
  counters.payload_delivered += payload;
}

void NicContext::count_arrival(const Packet* p) {
  ++counters.data_packets_received;
  counters.received_bytes += p->size_bytes;
  if (p->retransmit) counters.waste_bytes += p->size_bytes;
}

bool AckCoalescer::on() const { return ctx_.config.ack_every > 1; }

bool AckCoalescer::in_order(const Flow& f) {
  if (!on()) return true;
  Waiting& w = rx_[f.rx_slot];
  if (++w.packets >= ctx_.config.ack_every || f.done()) {
    w = Waiting{0, w.gen + 1};
    return true;
  }
  ++coalesced_;
  if (w.packets == 1) {
    ++w.gen;
    ctx_.fabric.schedule_in(ctx_.config.ack_delay_ps, this, 0, (std::uint64_t{w.gen} << 32) | f.id);
  }
  return false;
}

void AckCoalescer::on_event(std::uint32_t, std::uint64_t data) {
  Flow& f = ctx_.flows[static_cast<std::uint32_t>(data)];
  Waiting& w = rx_[f.rx_slot];
  if (static_cast<std::uint32_t>(data >> 32) != w.gen || w.packets == 0) return;  // answered meanwhile
  w = Waiting{0, w.gen + 1};
  ++delayed_;
  flush_(owner_, f);
  ctx_.wake_at(ctx_.now());  // the NIC sends what it queued
}

Transport::Transport(NicContext& ctx, bool per_packet_acks)
    : ctx_(ctx), cc_(make_congestion_control(ctx)), paced_(cc_ && cc_->paces()), per_packet_acks_(per_packet_acks) {}

Transport::~Transport() = default;

void Transport::send_control(const Flow& f, PacketType type, std::uint32_t sn) {
  Packet* a = ctx_.new_control(f, type, sn);
  if (!a) return;
  echo(f, a);
  ctx_.control.push_back(a);
}

bool Transport::window_allows(const Flow& f, std::uint32_t payload) const {
  if (paced_) {
    const Ps release = cc_->release_time(f);
    if (release > ctx_.now()) {
      ctx_.wake_at(release);
      return false;
    }
  }
  std::uint64_t window = ctx_.config.window_bytes;
  if (cc_) {
    const std::uint64_t cw = cc_->window(f);
    window = window ? std::min(window, cw) : cw;
  }
  return !(window && f.inflight_bytes + payload > window && f.inflight_bytes > 0);
}

void Transport::report_retransmissions(ReportSection& s) const {
  const NicCounters& n = ctx_.counters;
  s.sum("retransmitted_bytes", n.resent_bytes);
  s.sum("spurious_retransmissions", n.spurious_resends);
  s.tally("waste_bytes", n.waste_bytes);
  s.tally("received_bytes", n.received_bytes);
  s.finish_with([](ReportSection& t) {
    const std::uint64_t waste = t.tally("waste_bytes"), received = t.tally("received_bytes");
    t.set("waste_fraction", received ? static_cast<double>(waste) / static_cast<double>(received) : 0.0);
  });
}

std::string Transport::sender_detail(const Flow&) const { return {}; }

const std::vector<std::uint64_t>& Transport::reorder_histogram() const {
  static const std::vector<std::uint64_t> kNone;
  return kNone;
}

namespace {
struct Registered {
  TransportKind kind;
  const char* name;  // the scenario's nic.transport
  std::unique_ptr<Transport> (*make)(NicContext&);
};
constexpr std::array<Registered, 5> kTransports{{
    {TransportKind::basic, "basic", make_basic_transport},
    {TransportKind::reorder, "reorder", make_reorder_transport},
    {TransportKind::go_back_n, "gbn", make_go_back_n_transport},
    {TransportKind::selective_repeat, "sr", make_selective_repeat_transport},
    {TransportKind::tcp, "tcp", make_tcp_transport},
}};
}  // namespace

std::vector<std::pair<const char*, TransportKind>> transport_choices() {
  std::vector<std::pair<const char*, TransportKind>> choices;
  for (const Registered& r : kTransports) choices.emplace_back(r.name, r.kind);
  return choices;
}

std::unique_ptr<Transport> make_transport(NicContext& ctx) {
  for (const Registered& r : kTransports)
    if (r.kind == ctx.config.transport) return r.make(ctx);
  throw ModelError(fmt::format("{}: no transport registered for kind {}", ctx.name,
                               static_cast<unsigned>(ctx.config.transport)));
}

void FlowTable::set_dependencies(const std::vector<std::pair<std::uint32_t, std::uint32_t>>& before_after,
                                 const std::vector<Ps>& gap, FlowReleaser* releaser, const std::vector<Ps>& edge_delay,
                                 const std::vector<Ps>& floor) {
  const std::size_t n = flows_.size();
  waits_.assign(n, 0);
  succ_begin_.assign(n + 1, 0);
  for (const auto& [before, after] : before_after) {
    ++waits_[after];
    ++succ_begin_[before + 1];
  }
  for (std::size_t i = 0; i < n; ++i) succ_begin_[i + 1] += succ_begin_[i];
  succ_.resize(before_after.size());
  succ_delay_.assign(edge_delay.empty() ? 0 : before_after.size(), 0);
  std::vector<std::uint32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (std::size_t e = 0; e < before_after.size(); ++e) {
    const auto [before, after] = before_after[e];
    if (!edge_delay.empty()) succ_delay_[fill[before]] = edge_delay[e];
    succ_[fill[before]++] = after;
  }
  ready_ = floor;
  ready_.resize(n, 0);
  gap_ = gap;
  gap_.resize(n, 0);
  releaser_ = releaser;
}

void FlowTable::release_successors(std::uint32_t id, Ps now) {
  for (std::uint32_t k = succ_begin_[id]; k < succ_begin_[id + 1]; ++k) {
    const std::uint32_t s = succ_[k];
    ready_[s] = std::max(ready_[s], now + (succ_delay_.empty() ? 0 : succ_delay_[k]));
    if (--waits_[s] == 0) releaser_->release(s, std::max(ready_[s], now + gap_[s]));
  }
}

}  // namespace netasic
