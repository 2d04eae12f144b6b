#include "tlm/model/flowcut_engine.h"

#include <algorithm>

namespace netasic {

FlowcutEngine::FlowcutEngine(const FlowcutParams& params, FlowcutSite site, const std::string& owner_name,
                             FlowcutOwner& owner, Fabric& fabric, const RoutingContext* ctx, Ps clock_ps)
    : params_(params),
      site_(site),
      owner_(owner),
      fabric_(fabric),
      ctx_(ctx),
      clock_ps_(clock_ps > 0 ? clock_ps : 1),
      rtt_(params) {
  FlowcutTableConfig t = params.table;
  if (site == FlowcutSite::nic) t.key_bits = 32;  // the NIC keys its flows by the id it assigned
  table_ = make_flowcut_table(params, t, owner_name);
  const std::uint32_t entries = table_->config().entries;
  shadow_.assign(std::max<std::uint32_t>(1, params.shadow_counters), 0);
  epoch_.assign(entries, 0);
  packets_.assign(entries, 0);
  drain_since_.assign(entries, 0);
  drain_refreshes_.assign(entries, 0);
  pinned_.assign(entries, 0);
  if (site == FlowcutSite::switch_asic) {
    FgfcGeneratorConfig g;
    g.gap = params.fgfc_gap_cycles;
    fgfc_ = make_fgfc_generator(params, g, owner_name);
  }
}

// ---- Common -------------------------------------------------------------------------------------------

std::optional<std::uint32_t> FlowcutEngine::start(const WideKey& key, std::uint16_t out_port, std::uint16_t in_port) {
  const InsertResult r = table_->insert(key, out_port, in_port);
  if (r.status != InsertStatus::ok) return std::nullopt;
  epoch_[r.index] = ++next_epoch_;
  packets_[r.index] = 0;
  pinned_[r.index] = 0;
  ++counters_.flowcuts;
  note_occupancy();
  return r.index;
}

void FlowcutEngine::add(std::uint32_t index, std::uint32_t payload) {
  table_->add_bytes(index, payload);
  ++packets_[index];
}

void FlowcutEngine::untracked(std::uint32_t slot, std::uint32_t payload) {
  shadow_[slot % shadow_.size()] += payload;
  ++counters_.untracked_packets;
}

bool FlowcutEngine::must_hold(const WideKey& key) {
  return params_.overflow == FlowcutOverflow::hold && !table_->lookup(key) &&
         table_->occupancy() == table_->config().entries;
}

void FlowcutEngine::on_ack(const Ack& a) {
  if (a.at_source && a.echo_ts > 0 && a.echo_ts <= fabric_.now() && fabric_.stats_window().contains(fabric_.now()))
    hold_ns_.add((fabric_.now() - a.echo_ts) / kPsPerNs);
  if (!a.tracked) {
    std::uint32_t& shadow = shadow_[a.shadow_slot % shadow_.size()];
    shadow -= std::min(shadow, a.bytes);
    return;
  }
  const auto idx = table_->lookup(a.key);
  if (!idx || (a.at_source && epoch_[*idx] != a.epoch)) {
    ++counters_.acks_unmatched;  // its flowcut's entry was released early (early resume)
    return;
  }
  const FlowcutEntry e = table_->read(*idx);
  bool draining = e.draining;
  if (a.at_source && !draining && e.inflight > a.bytes) {
    // RTT of this packet, less its transmission term, normalized per hop count (Section II-B).
    const Ps rtt = fabric_.now() - a.echo_ts;
    const Ps term = owner_.ack_transmission_term(e.out_port, a.bytes, a.hops);
    const RttMonitor::Update u =
        rtt_.update(rtt > term ? rtt - term : 1, a.hops, e.rtt_avg, e.last_rtt, e.rtt_diff_avg, e.last_rtt == 0);
    table_->set_rtt(*idx, u.avg, u.last, u.diff_avg);
    if (u.drain && !pinned_[*idx] && (params_.min_packets_left == 0 || a.packets_left >= params_.min_packets_left) && a.more_to_send) {
      begin_drain(*idx, a.source);
      draining = true;
    }
  }
  if (packets_[*idx]) --packets_[*idx];
  const std::uint32_t packets_left_in_flight = packets_[*idx];
  const AckResult r = table_->ack_subtract(a.key, a.bytes);
  if (r.deleted) {
    if (draining) end_drain(a.source);
    entry_freed();
  } else if (draining && params_.early_resume_packets > 0 &&
             r.remaining <= std::uint64_t{params_.early_resume_packets} * params_.max_payload_bytes) {
    // Early resume: release the entry with at most k packets in flight (out-of-order degree <= k). The
    // tables count payload bytes, so the bound is k times the largest payload a packet carries: with the
    // largest packet (payload plus header) instead, k full packets and a short last one would fit.
    table_->erase(a.key);
    ++counters_.early_resumes;
    counters_.max_packets_at_early_resume =
        std::max<std::uint64_t>(counters_.max_packets_at_early_resume, packets_left_in_flight);
    end_drain(a.source);
    entry_freed();
  }
}

void FlowcutEngine::begin_drain(std::uint32_t index, const FlowcutSource& s) {
  table_->set_drain(index, true);
  drain_since_[index] = fabric_.now();
  drain_refreshes_[index] = 0;
  ++counters_.drains;
  if (site_ == FlowcutSite::nic) return owner_.pause_source(s);
  if (ctx_->flows) ++(*ctx_->flows)[s.flow].drains;
  send_fgfc(s, true);
}

void FlowcutEngine::end_drain(const FlowcutSource& s) {
  ++counters_.drains_completed;
  if (site_ == FlowcutSite::nic) return owner_.resume_source(s);
  send_fgfc(s, false);
}

// ---- Switch site --------------------------------------------------------------------------------------

std::uint16_t FlowcutEngine::follow(Packet* p, std::uint32_t index) {
  add(index, p->payload_bytes);
  const unsigned hop = p->path_len - 1;
  p->fc_tracked |= static_cast<std::uint16_t>(1u << hop);
  const FlowcutEntry e = table_->read(index);
  if (hop == 0) {
    p->fc_epoch = epoch_[index];
    if (e.draining) refresh_drain(index, FlowcutSource{p->src_host, p->flow_hash, p->flow});
  }
  return e.out_port;
}

void FlowcutEngine::refresh_drain(std::uint32_t index, const FlowcutSource& s) {
  // A packet of a draining flow a whole pause period after the XOFF: its source resumed when the period
  // ran out, before the flow drained (a lost ACK may keep the entry from ever emptying). old_path: the
  // drain ends and the flowcut stays on its path, never drained again, until its entry empties. repause:
  // pause the source again, a bounded number of times; then give the drain up and let the RTT monitor
  // decide afresh.
  if (fabric_.now() < drain_since_[index] + params_.pause_period_ps) return;
  if (params_.after_source_timeout == FlowcutSourceTimeout::old_path) {
    table_->set_drain(index, false);
    pinned_[index] = 1;
    ++counters_.drains_abandoned;
  } else if (drain_refreshes_[index] < kMaxDrainRefreshes) {
    ++drain_refreshes_[index];
    drain_since_[index] = fabric_.now();
    ++counters_.drain_refreshes;
    send_fgfc(s, true);
  } else {
    table_->set_drain(index, false);
    ++counters_.drains_abandoned;
  }
}

bool FlowcutEngine::start_flowcut(Packet* p, const WideKey& key, const std::uint16_t* ports, std::uint32_t n,
                                  std::uint16_t& o) {
  // The least-loaded candidate, unless untracked bytes of this hash may still be in flight on the flow's
  // ECMP path, which the new flowcut must then keep.
  o = shadowed(p->flow_hash) ? ctx_->hash_pick(ports, n, p) : ctx_->least_loaded(ports, n);
  const auto index = start(key, o, p->in_port);
  if (!index) return false;
  follow(p, *index);
  if (ctx_->flows && ctx_->at_ingress(p)) {
    const std::uint32_t n = ++(*ctx_->flows)[p->flow].flowcuts;
    if (ctx_->flow_observer) ctx_->flow_observer->on_flowcut(p->flow, n, ctx_->now());
    if (ctx_->note_path(p->flow, o)) ++counters_.path_changes;
  }
  return true;
}

std::uint16_t FlowcutEngine::route(Packet* p, const std::uint16_t* ports, std::uint32_t n) {
  const WideKey key = WideKey::from_flow(p->key);
  // A flow with a packet already waiting waits behind it, even if it has an entry again by now (released
  // ahead of it from the same queue): held packets leave strictly in arrival order.
  for (const Packet* h : held_)
    if (h->key == p->key) {
      hold(p);
      return RoutingFunction::kHeld;
    }
  if (const auto idx = table_->lookup(key)) return follow(p, *idx);
  std::uint16_t o;
  if (start_flowcut(p, key, ports, n, o)) return o;
  ++counters_.overflows;
  // Hold only at the ingress: there a held packet keeps only its own host's input buffer. Holding deeper
  // in the fabric (full switch) can close a hold-and-wait cycle, where one switch's held packets keep the
  // buffer that flows tracked by another switch need in order to drain; there the packet goes untracked.
  if (params_.overflow == FlowcutOverflow::hold && p->path_len == 1) {
    hold(p);
    return RoutingFunction::kHeld;
  }
  untracked(p->flow_hash, p->payload_bytes);
  return ctx_->hash_pick(ports, n, p);
}

void FlowcutEngine::retry_held() {
  while (!held_.empty()) {
    Packet* p = held_.front();
    const WideKey key = WideKey::from_flow(p->key);
    if (!table_->lookup(key) && table_->occupancy() == table_->config().entries) return;
    std::uint32_t n = 0;
    const std::uint16_t* c = owner_.held_candidates(p, n);
    // Not through route()'s own hold check: this packet is the oldest of its flow.
    std::uint16_t o;
    if (const auto idx = table_->lookup(key)) {
      o = follow(p, *idx);
    } else if (!start_flowcut(p, key, c, n, o)) {
      return;  // its set is full: it keeps waiting, first in line
    }
    held_.pop_front();
    owner_.release_held(p, o);
  }
}

void FlowcutEngine::on_data_arrival(Packet* p) {
  if (p->path_len < Packet::kMaxPath) p->path_in[p->path_len] = static_cast<std::uint8_t>(p->in_port);
  ++p->path_len;
  const std::uint32_t dst_switch = ctx_->routing->host_switch(p->dst_host);
  if (ctx_->at_ingress(p) && dst_switch != ctx_->switch_id) {
    p->t_ingress = fabric_.now();
    p->fc_stamped = 1;
    p->size_bytes += params_.timestamp_bytes;
  } else if (dst_switch == ctx_->switch_id && p->fc_stamped) {
    p->size_bytes -= params_.timestamp_bytes;
  }
}

Packet* FlowcutEngine::make_ack(const Packet* p) {
  // Full switch retraces the recorded path (at most kMaxPath switches, checked when the fabric is built).
  if (p->path_len < 2 || (retraces() && p->path_len > Packet::kMaxPath)) return nullptr;
  if (params_.ack_loss > 0 && ctx_->rng->uniform() < params_.ack_loss) {
    ++counters_.acks_lost;
    return nullptr;
  }
  Packet* a = fabric_.pool().get();
  a->type = PacketType::fc_ack;
  a->flow = p->flow;
  a->key = p->key;
  a->flow_hash = p->flow_hash ^ kAckHashMix;
  a->src_host = p->dst_host;
  a->dst_host = p->src_host;
  a->size_bytes = params_.ack_bytes;
  a->ack_bytes = p->payload_bytes;
  a->ack_psn = p->psn;
  a->echo_ts = p->t_ingress;
  a->echo_hops = static_cast<std::uint8_t>(p->path_len - 1);  // switch-to-switch links
  a->packets_left = p->packets_left;
  a->fc_tracked = p->fc_tracked;
  a->fc_epoch = p->fc_epoch;
  a->path_len = p->path_len;
  std::copy(std::begin(p->path_in), std::end(p->path_in), std::begin(a->path_in));
  a->vc = 0;
  if (retraces()) a->ack_pos = static_cast<std::uint8_t>(p->path_len - 2);  // the switch before this one
  ++counters_.acks_generated;
  return a;
}

bool FlowcutEngine::on_ack_packet(Packet* a) {
  Ack ack;
  ack.key = WideKey::from_flow(a->key);
  ack.shadow_slot = a->flow_hash ^ kAckHashMix;
  ack.bytes = a->ack_bytes;
  ack.epoch = a->fc_epoch;
  ack.echo_ts = a->echo_ts;
  ack.hops = a->echo_hops;
  ack.packets_left = a->packets_left;
  ack.source = FlowcutSource{a->dst_host, a->flow_hash ^ kAckHashMix, a->flow};
  if (retraces()) {
    const unsigned j = a->ack_pos;
    ack.tracked = (a->fc_tracked >> j) & 1u;
    ack.at_source = j == 0;
    on_ack(ack);
    if (j != 0) a->ack_pos = static_cast<std::uint8_t>(j - 1);
    return j == 0;
  }
  if (ctx_->routing->host_switch(a->dst_host) != ctx_->switch_id) return false;
  ack.tracked = a->fc_tracked & 1u;
  ack.at_source = true;
  on_ack(ack);
  return true;
}

void FlowcutEngine::send_fgfc(const FlowcutSource& s, bool xoff) {
  const std::uint64_t cycle = fabric_.now() / clock_ps_;
  FgfcFrame frame;
  frame.flow_id = s.flow_id;
  frame.xoff = xoff;
  frame.period = xoff ? static_cast<std::uint16_t>(std::min<Ps>(65535, std::max<Ps>(1, params_.pause_period_ps / kPsPerUs))) : 0;
  frame.credit = xoff && params_.xoff_with_credit ? params_.xoff_credit_bytes : 0;
  const FgfcRequestStatus st = fgfc_->request(cycle, frame);
  if (st == FgfcRequestStatus::full) {
    // No slot in the frame generator: counted; the source's pause period bounds the harm of a lost XON.
    ++counters_.control_overflows;
    return;
  }
  if (st == FgfcRequestStatus::coalesced) ++counters_.fgfc_coalesced;
  fgfc_dest_[s.flow_id] = {s.host, s.flow};
  emit_fgfc_frames();
}

void FlowcutEngine::emit_fgfc_frames() {
  const std::uint64_t cycle = fabric_.now() / clock_ps_;
  while (auto frame = fgfc_->next_frame(cycle)) {
    const auto dest = fgfc_dest_[frame->flow_id];
    Packet* f = fabric_.pool().get();
    f->type = PacketType::fgfc;
    f->src_host = dest.first;
    f->dst_host = dest.first;
    f->flow = dest.second;
    f->size_bytes = 64;
    f->fgfc_flow_id = frame->flow_id;
    f->fgfc_xoff = frame->xoff;
    f->fgfc_period = frame->period;
    f->fgfc_credit = frame->credit;
    f->vc = 0;
    if (!frame->xoff) ++counters_.xon_frames;
    else if (frame->credit) ++counters_.xoff_credit_frames;
    else ++counters_.xoff_frames;
    owner_.inject_control(f, ctx_->routing->host_port(dest.first));
  }
  if (const auto due = fgfc_->next_due(cycle); due && !fgfc_poll_pending_) {
    fgfc_poll_pending_ = true;
    owner_.schedule_fgfc_poll(static_cast<Ps>(*due) * clock_ps_);
  }
}

namespace {

const char* variant_name(FlowcutVariant v) {  // as flowcut.variant names it
  switch (v) {
    case FlowcutVariant::full_switch: return "full_switch";
    case FlowcutVariant::ingress_only: return "ingress_only";
    case FlowcutVariant::nic_only: return "nic_only";
  }
  return "?";
}

void report_counters(ReportSection& s, const FlowcutCounters& c) {
  s.sum("flowcuts", c.flowcuts);
  s.sum("path_changes", c.path_changes);
  s.sum("drains", c.drains);
  s.sum("drains_completed", c.drains_completed);
  s.sum("drain_refreshes", c.drain_refreshes);
  s.sum("drains_abandoned", c.drains_abandoned);
  s.sum("early_resumes", c.early_resumes);
  s.sum("acks", c.acks_generated);
  s.sum("acks_unmatched", c.acks_unmatched);
  s.sum("acks_lost", c.acks_lost);
  s.sum("fgfc_frames/xoff", c.xoff_frames);
  s.sum("fgfc_frames/xoff_credit", c.xoff_credit_frames);
  s.sum("fgfc_frames/xon", c.xon_frames);
  s.sum("fgfc_frames/coalesced", c.fgfc_coalesced);
  s.sum("table/overflows", c.overflows);
  s.sum("table/untracked_packets", c.untracked_packets);
  s.sum("table/held_packets", c.held_packets);
  s.sum("control_frames_dropped", c.control_overflows);
}

// Per flow: flowcuts, and the share of its completion time spent draining (Section II-B's cost), summed in
// flow-id order.
void report_flows(ReportSection& s, const FlowTable& flows) {
  double drain_ps = 0, fct_ps = 0;
  std::uint64_t flowcuts = 0;
  for (const Flow& f : flows.flows()) {
    flowcuts += f.flowcuts;
    if (!f.done()) continue;
    drain_ps += static_cast<double>(f.drain_ps);
    fct_ps += static_cast<double>(f.finish - f.start);
  }
  s.set("flowcuts_per_flow", flows.size() ? static_cast<double>(flowcuts) / static_cast<double>(flows.size()) : 0.0);
  s.set("drain_fraction_of_fct", fct_ps > 0 ? drain_ps / fct_ps : 0.0);
}

// The time packets held state at their flow's first table, summed over every table by bucket (tallies
// "hold_ns/<bucket>", plus the sample count and sum), and its distribution once all have reported.
void report_hold_time(ReportSection& s, const LogHistogram& h) {
  const auto& c = h.counts();
  for (std::uint32_t b = 0; b < c.size(); ++b)
    if (c[b]) s.tally("hold_ns/" + std::to_string(b), c[b]);
  s.tally("hold_ns/samples", h.total());
  s.tally("hold_ns/sum", static_cast<std::uint64_t>(h.mean() * static_cast<double>(h.total()) + 0.5));
  s.max("hold_time_ns/max", h.max());
  s.finish_with([](ReportSection& f) {
    const std::uint64_t n = f.tally("hold_ns/samples");
    f.set("hold_time_ns/samples", n);
    if (n == 0) return;
    // Rebuild the summed histogram: each bucket's weight at its upper bound, which is what quantile() returns.
    LogHistogram all;
    for (std::uint32_t b = 0; b < 4096; ++b)
      if (const std::uint64_t k = f.tally("hold_ns/" + std::to_string(b))) all.add(LogHistogram::upper(b), k);
    f.set("hold_time_ns/avg", static_cast<double>(f.tally("hold_ns/sum")) / static_cast<double>(n));
    f.set("hold_time_ns/p50", all.quantile(0.5));
    f.set("hold_time_ns/p99", all.quantile(0.99));
  });
}

nlohmann::json table_entry(const std::string& owner, const FlowcutTableIf& t, std::uint64_t overflows) {
  using nlohmann::json;
  const FlowcutStorage st = t.storage();
  json fields = json::array();
  for (const auto& f : st.fields) fields.push_back({{"name", f.name}, {"bits", f.bits}, {"counted_by_paper", f.counted_by_paper}});
  return json{{"owner", owner},
              {"capacity", t.config().entries},
              {"organization", t.config().organization == FlowcutOrganization::fully_associative ? "cam" : "hashed"},
              {"high_water", t.high_water()},
              {"overflows", overflows},
              {"insert_failures", t.insert_failures()},
              {"occupancy_histogram", {{"bucket_width", t.histogram_bucket_width()}, {"counts", t.occupancy_histogram()}}},
              {"storage", {{"fields", fields}, {"state_bits_per_entry", st.state_bits}, {"state_bytes_per_entry", st.state_bytes()},
                           {"bits_per_entry", st.entry_bits}, {"total_bits", st.total_bits}}}};
}

}  // namespace

void FlowcutEngine::report(Report& r) const {
  ReportSection& s = r.open("flowcut");
  s.set("variant", variant_name(params_.variant));
  report_counters(s, counters_);
  const FlowcutTableIf& t = *table_;
  s.max("table/high_water", std::uint64_t{t.high_water()});
  s.set("table/entries", t.config().entries);
  const LogHistogram occ = occupancy_time_.until(r.end_ps(), fabric_.stats_window());
  s.max("table/occupancy/mean", occ.mean());
  for (const auto& [name, q] : kOccupancyQuantiles) s.max(std::string("table/occupancy/") + name, occ.quantile(q));
  report_hold_time(s, hold_ns_);
  // Entries still draining when the run stopped (the switch tables: a NIC's drains pause its own flows).
  std::uint64_t draining = 0;
  for (std::uint32_t i = 0; i < t.config().entries; ++i) draining += t.read(i).draining;
  s.sum("drains_in_progress_at_end", draining);
  if (r.once("flowcut/flows")) report_flows(s, r.flows());
  nlohmann::json entry = table_entry(r.component(), t, counters_.overflows);
  entry["occupancy_over_time"] = occupancy_json(occ);
  if (hold_ns_.total())
    entry["hold_time_ns"] = {{"samples", hold_ns_.total()}, {"avg", hold_ns_.mean()}, {"p99", hold_ns_.quantile(0.99)}};
  r.table("flowcut").push_back(std::move(entry));
}

}  // namespace netasic
