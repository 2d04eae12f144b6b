#include "tlm/model/nic.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

namespace {
enum NicEvent : std::uint32_t { kFlowStart = 1, kTxDone = 2, kReceive = 3, kTimeout = 4, kFgfcExpire = 5 };
constexpr std::uint8_t kControlVc = 0;
constexpr std::uint8_t kDataVc = 1;
}  // namespace

Nic::Nic(const sc_core::sc_module_name& name, Fabric& fabric, const NicConfig& config, FlowTable& flows,
         std::uint32_t host, std::uint64_t seed)
    : sc_core::sc_module(name),
      out("out"),
      in("in"),
      fabric_(fabric),
      config_(config),
      flows_(flows),
      host_(host),
      control_(config.control_queue_packets),
      rng_(seed, 0x4E49430000000000ULL + host) {
  if (config_.mtu_bytes == 0) throw InputError("nic.mtu_bytes must be > 0");
  if (const FlowcutParams* fc = config_.flowcut) {
    if (fc->variant == FlowcutVariant::nic_only) {
      FlowcutTableConfig t = fc->table;
      t.key_bits = 32;  // the NIC keys its flows by the id it assigned
      fc_table_ = make_flowcut_table(*fc, t, this->name());
      rtt_ = std::make_unique<RttMonitor>(*fc);
      shadow_.assign(std::max<std::uint32_t>(1, fc->shadow_counters), 0);
      fc_epoch_.assign(t.entries, 0);
    } else {
      FgfcCacheConfig c;
      c.entries = fc->nic_cache_entries;
      fgfc_cache_ = std::make_unique<FgfcCache>(c);
      class_paused_until_.assign(8, 0);
    }
  }
  in.bind(fw_);
  out.bind(bw_);
}

void Nic::attach(Link* in_link, Link* out_link) {
  in_link_ = in_link;
  out_link_ = out_link;
  out_link_->set_sender(this, 0);
}

void Nic::add_flow(std::uint32_t flow_id) {
  Flow& f = flows_[flow_id];
  f.packets = static_cast<std::uint32_t>((f.size_bytes + config_.mtu_bytes - 1) / config_.mtu_bytes);
  f.acked.assign(f.packets, false);
  f.received.assign(f.packets, false);
  if (config_.transport == TransportKind::selective_repeat) f.sr_tx = std::make_unique<SrSender>(f.packets, config_.sr_dupthresh);
  if (config_.cc == CongestionControlKind::dctcp) f.cc = std::make_unique<Dctcp>(config_.dctcp_config);
  fabric_.schedule(f.start, this, kFlowStart, flow_id);
}

std::uint32_t Nic::payload_of(const Flow& f, std::uint32_t psn) const {
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(config_.mtu_bytes, f.size_bytes - std::uint64_t{psn} * config_.mtu_bytes));
}

void Nic::deliver_to_application(Flow& f, std::uint32_t psn) {
  // The application takes packet psn; anything but the next in sequence is counted (it must stay 0).
  if (psn != f.app_next) {
    ++f.app_out_of_order;
    ++counters_.app_out_of_order;
  }
  f.app_next = psn + 1;
  const std::uint64_t payload = payload_of(f, psn);
  f.delivered_bytes += payload;
  counters_.payload_delivered += payload;
}

void Nic::complete_if_delivered(Flow& f) {
  if (f.expected_psn == f.packets && !f.done()) {
    f.finish = fabric_.now();
    if (flows_.mark_completed()) fabric_.request_stop();
  }
}

void Nic::add_incoming_flow(std::uint32_t flow_id) {
  Flow& f = flows_[flow_id];
  if (config_.transport == TransportKind::reorder && config_.pair_connections) {
    if (pair_of_src_.size() <= f.src) pair_of_src_.resize(f.src + 1, 0xffffffffu);
    if (pair_of_src_[f.src] == 0xffffffffu) {
      pair_of_src_[f.src] = incoming_++;
      pairs_.emplace_back();
    }
    f.connection = pair_of_src_[f.src];
    pairs_[f.connection].messages.emplace_back(0, flow_id);
  } else {
    f.connection = incoming_++;
  }
  if (config_.transport == TransportKind::selective_repeat) f.sr_rx = std::make_unique<SackReceiver>();
}

void Nic::finish_setup() {
  if (config_.transport != TransportKind::reorder) return;
  ReorderBufferConfig c = config_.reorder_buffer;
  c.connections = std::max<std::uint32_t>(1, incoming_);
  if (c.memory == ReorderMemory::dynamic_pool)  // a pool larger than every connection at its cap is never used
    c.pool_units = std::min<std::uint64_t>(c.pool_units, std::uint64_t{c.connections} * c.buffer_units);
  if (c.connections > 65536)
    throw InputError(fmt::format("{}: {} flows into one NIC; the rearrange engine holds at most 65536 connections",
                                 name(), c.connections));
  rb_ = std::make_unique<ReorderBuffer>(c);
  rb_histogram_.assign(16, 0);
  // Pair connections: the messages of a pair follow each other in one sequence space, in start order.
  for (PairConnection& pc : pairs_) {
    std::sort(pc.messages.begin(), pc.messages.end(), [&](const auto& a, const auto& b) {
      const Flow& fa = flows_[a.second];
      const Flow& fb = flows_[b.second];
      return fa.start != fb.start ? fa.start < fb.start : fa.id < fb.id;
    });
    std::uint64_t position = 0;
    std::uint32_t prev = 0xffffffffu;
    for (auto& m : pc.messages) {
      Flow& f = flows_[m.second];
      m.first = position;
      f.seq_base = position;
      f.pair_prev = prev;
      position += (f.size_bytes + config_.mtu_bytes - 1) / config_.mtu_bytes;
      prev = f.id;
    }
  }
}

Flow& Nic::pair_flow_at(std::uint32_t connection, std::uint64_t position) {
  const auto& m = pairs_[connection].messages;
  auto it = std::upper_bound(m.begin(), m.end(), std::make_pair(position, 0xffffffffu));
  if (it == m.begin()) throw ModelError(fmt::format("{}: no message at sequence position {}", name(), position));
  return flows_[std::prev(it)->second];
}

void Nic::on_event(std::uint32_t kind, std::uint64_t data) {
  switch (kind) {
    case kFlowStart:
      active_.push_back(static_cast<std::uint32_t>(data));
      try_send();
      break;
    case kTxDone:
      tx_pending_ = false;
      try_send();
      break;
    case kReceive:
      deliver(reinterpret_cast<Packet*>(data));
      break;
    case kTimeout:
      on_timeout(static_cast<std::uint32_t>(data));
      break;
    case kFgfcExpire: {
      Flow& f = flows_[static_cast<std::uint32_t>(data)];
      if (f.paused_since != kNever && fgfc_cache_ && !fgfc_cache_->lookup(now_us(), f.hash).paused &&
          class_paused_until_[f.tclass] <= now_us())
        resume(f, true);
      try_send();
      break;
    }
    default:
      break;
  }
}

void Nic::prefetch(std::uint32_t kind, std::uint64_t data, unsigned step) const {
  if (kind == kReceive) {
    // Step 1: the flow record and the input link; step 0: the ring slot the credit return writes.
    if (!in_link_) return;
    if (step == 1) {
      const Packet* p = reinterpret_cast<const Packet*>(data);
      __builtin_prefetch(&flows_.flows()[p->flow]);
      in_link_->prefetch_state();
    } else {
      in_link_->prefetch_return_slot();
    }
  } else if (kind == kTxDone) {
    // Step 1: the output link; step 0: the receiving switch port behind it.
    if (!out_link_) return;
    if (step == 1) out_link_->prefetch_state();
    else out_link_->prefetch_receiver();
  }
}

void Nic::on_credit(std::uint16_t) { try_send(); }

void Nic::receive(std::uint16_t, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  Packet* p = packet_of(payload);
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  // Delivered when the tail is in, plus the NIC's receive processing.
  const Ps tail = fabric_.now() + delay.value() + p->ser_ps;
  fabric_.schedule(tail + config_.latency_ps, this, kReceive, reinterpret_cast<std::uint64_t>(p));
}

void Nic::deliver(Packet* p) {
  // The host drains the receive buffer at once: the credit goes back as the packet is taken.
  in_link_->return_credits(p->vc, p->size_bytes);
  if (p->type == PacketType::data) {
    receive_data(p);
  } else if (p->type == PacketType::ack || p->type == PacketType::nack) {
    receive_ack(p);
  } else if (p->type == PacketType::fgfc) {
    receive_fgfc(p);
  } else if (p->type == PacketType::pause || p->type == PacketType::resume) {
    receive_pause(p);
  } else {
    fabric_.pool().put(p);
  }
}

void Nic::receive_data(Packet* p) {
  Flow& f = flows_[p->flow];
  // ECN counts, echoed on every ACK/NACK of the flow (every arrival counts, even one the transport drops).
  f.rx_bytes += p->payload_bytes;
  if (p->ce) f.rx_ce_bytes += p->payload_bytes;
  if (rb_) {
    reorder_receive(f, p);
    return;
  }
  if (config_.transport == TransportKind::selective_repeat) {
    sr_receive(f, p);
    return;
  }
  if (config_.transport == TransportKind::go_back_n) {
    gbn_receive(f, p);
    return;
  }
  ++counters_.data_packets_received;
  const std::uint32_t psn = p->psn;
  if (psn < f.expected_psn || f.received[psn]) {
    ++f.duplicates;
    ++counters_.duplicates;
    ++counters_.spurious_resends;
  } else {
    if (psn != f.expected_psn) {
      const std::uint32_t degree = psn - f.expected_psn;
      ++f.ooo_packets;
      ++counters_.ooo_packets;
      f.max_ooo_degree = std::max(f.max_ooo_degree, degree);
      counters_.max_ooo_degree = std::max(counters_.max_ooo_degree, degree);
    }
    if (psn + 1 < f.highest_psn) {
      ++f.late_packets;
      ++counters_.late_packets;
    }
    f.highest_psn = std::max(f.highest_psn, psn + 1);
    f.received[psn] = true;
    f.delivered_bytes += p->payload_bytes;
    counters_.payload_delivered += p->payload_bytes;
    while (f.expected_psn < f.packets && f.received[f.expected_psn]) ++f.expected_psn;
    complete_if_delivered(f);
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
  a->size_bytes = config_.ack_bytes;
  a->hops = 0;
  a->global_hops = 0;
  a->went_down = 0;
  a->via_group = kNoSwitch;
  a->vc = kControlVc;
  a->ect = 0;
  a->ce = 0;
  echo_ecn(f, a);
  if (control_.full()) {
    ++counters_.control_dropped;
    fabric_.pool().put(a);
    return;
  }
  control_.push_back(a);
  try_send();
}

void Nic::receive_ack(Packet* p) {
  Flow& f = flows_[p->flow];
  if (config_.transport == TransportKind::selective_repeat) sr_source_ack(f, p);
  else if (config_.transport == TransportKind::go_back_n) gbn_source_ack(f, p);
  else if (config_.transport == TransportKind::reorder) reorder_source_ack(f, p);
  else basic_source_ack(f, p);
  if (f.cc) cc_on_ack(f, p);
  fabric_.pool().put(p);
  try_send();
}

void Nic::basic_source_ack(Flow& f, const Packet* p) {
  if (fc_table_) nic_flowcut_ack(f, p);
  const std::uint32_t psn = p->ack_psn;
  if (psn < f.packets && !f.acked[psn]) {
    f.acked[psn] = true;
    ++f.acked_count;
    f.inflight_bytes -= std::min<std::uint64_t>(f.inflight_bytes, p->ack_bytes);
    f.last_ack = fabric_.now();
    if (f.acked_count == f.packets) f.sender_done = true;
  }
}

Packet* Nic::next_data_packet() {
  // Round-robin over active flows; a flow whose window is full waits for ACKs.
  for (std::size_t tries = 0; tries < active_.size();) {
    if (rr_ >= active_.size()) rr_ = 0;
    Flow& f = flows_[active_[rr_]];
    // A NACKed packet goes before new ones (reorder transport); those acknowledged meanwhile are dropped.
    while (!f.resend.empty() && (*f.resend.begin() < f.acked_upto || f.acked[*f.resend.begin()])) f.resend.erase(f.resend.begin());
    const bool resend = !f.resend.empty();
    // Skip packets already acknowledged (after a go-back-N rewind).
    while (!resend && f.next_psn < f.packets && f.acked[f.next_psn]) ++f.next_psn;
    if (!resend && f.next_psn >= f.packets) {
      // Everything sent once; the flow stays known to the timer (or a NACK), not to the scheduler.
      active_[rr_] = active_.back();
      active_.pop_back();
      continue;
    }
    const std::uint32_t psn = resend ? *f.resend.begin() : f.next_psn;
    const std::uint32_t payload = payload_of(f, psn);
    // Pair connections: messages of a pair enter its sequence space in order.
    if (!resend && f.pair_prev != 0xffffffffu && flows_[f.pair_prev].sent_high < flows_[f.pair_prev].packets) {
      ++rr_;
      ++tries;
      continue;
    }
    std::uint64_t window = config_.window_bytes;
    if (f.cc) window = window ? std::min(window, f.cc->window()) : f.cc->window();
    if ((window && f.inflight_bytes + payload > window && f.inflight_bytes > 0) ||
        !may_send(f, payload) || !injection_allows(f)) {
      ++rr_;
      ++tries;
      continue;
    }
    Packet* p = fabric_.pool().get();
    p->type = PacketType::data;
    p->flow = f.id;
    p->src_host = f.src;
    p->dst_host = f.dst;
    p->key = f.key;
    p->flow_hash = f.hash;
    p->psn = psn;
    p->payload_bytes = payload;
    p->size_bytes = payload + config_.header_bytes;
    p->tclass = f.tclass;
    p->vc = kDataVc;
    p->ect = f.cc ? 1 : 0;
    p->packets_left = f.packets - psn - 1;
    if (fc_table_) nic_flowcut_send(f, p);
    p->retransmit = resend || psn < f.sent_high ? 1 : 0;
    if (p->retransmit) {
      ++f.retransmits;
      ++counters_.resent_packets;
      counters_.resent_bytes += p->size_bytes;
    }
    if (resend) {
      f.resend.erase(f.resend.begin());
    } else {
      if (psn >= f.sent_high) f.sent_high = psn + 1;
      ++f.next_psn;
    }
    if (f.injection_limited && config_.injection == NicConfig::Injection::adap_li && f.li_credits) --f.li_credits;
    if (f.sr_tx) {
      f.sr_tx->sent(psn, payload);
      f.inflight_bytes = f.sr_tx->inflight_bytes();
    } else {
      f.inflight_bytes += payload;
    }
    ++rr_;
    if (config_.rto_ps && !f.rto_armed) arm_timer(f, fabric_.now() + config_.rto_ps);
    return p;
  }
  return nullptr;
}

void Nic::try_send() {
  const Ps now = fabric_.now();
  if (tx_free_at_ > now) {
    if (!tx_pending_) {
      tx_pending_ = true;
      fabric_.schedule(tx_free_at_, this, kTxDone);
    }
    return;
  }
  Packet* p = nullptr;
  if (!control_.empty() && out_link_->has_credit(kControlVc, control_.front()->size_bytes)) {
    p = control_.front();
    control_.pop_front();
    ++counters_.control_packets_sent;
  } else if (!active_.empty() && out_link_->has_credit(kDataVc, config_.mtu_bytes + config_.header_bytes)) {
    p = next_data_packet();
    if (p) {
      ++counters_.data_packets_sent;
      counters_.data_payload_sent += p->payload_bytes;
    }
  }
  if (!p) return;
  transmit(p, std::max(now, out_link_->free_at()));
  if ((!control_.empty() || !active_.empty()) && !tx_pending_) {
    tx_pending_ = true;
    fabric_.schedule(tx_free_at_, this, kTxDone);
  }
}

void Nic::transmit(Packet* p, Ps start) {
  out_link_->take_credits(p->vc, p->size_bytes);
  p->t_sent = start;
  tx_free_at_ = start + out_link_->serialization(p->size_bytes);
  attach_packet(payload_, p);
  sc_core::sc_time delay = sc_core::sc_time::from_value(start - fabric_.now());
  if (out_fw_ == out_link_->target_if()) out_link_->transmit(payload_, delay);  // bound to its link
  else out_fw_->b_transport(payload_, delay);
}

void Nic::arm_timer(Flow& f, Ps at) {
  f.rto_armed = true;
  fabric_.schedule(at, this, kTimeout, f.id);
}

void Nic::on_timeout(std::uint32_t flow_id) {
  Flow& f = flows_[flow_id];
  f.rto_armed = false;
  if (f.sender_done) return;
  const Ps now = fabric_.now();
  const Ps since = std::max(f.last_ack, f.start);
  if (since + config_.rto_ps > now) {
    arm_timer(f, since + config_.rto_ps);
    return;
  }
  if (f.cc) f.cc->on_timeout();
  if (f.sr_tx) {
    sr_timeout(f);
    return;
  }
  // No progress for a whole timeout: go back to the first unacknowledged packet.
  ++f.timeouts;
  std::uint32_t first = 0;
  while (first < f.packets && f.acked[first]) ++first;
  f.next_psn = first;
  f.inflight_bytes = 0;
  f.last_ack = now;
  if (std::find(active_.begin(), active_.end(), flow_id) == active_.end()) active_.push_back(flow_id);
  arm_timer(f, now + config_.rto_ps);
  try_send();
}

// ---- Flowcut at the source NIC ----------------------------------------------------------------------------

void Nic::receive_fgfc(Packet* p) {
  ++counters_.fgfc_frames;
  if (fgfc_cache_) {
    FgfcFrame frame;
    frame.flow_id = p->fgfc_flow_id;
    frame.xoff = p->fgfc_xoff;
    frame.period = p->fgfc_period;
    frame.credit = p->fgfc_credit;
    Flow& f = flows_[p->flow];
    const std::uint64_t now = now_us();
    switch (fgfc_cache_->apply(now, frame)) {
      case FgfcApplyStatus::paused:
      case FgfcApplyStatus::updated:
        if (f.paused_since == kNever) f.paused_since = fabric_.now();
        fabric_.schedule((now + frame.period) * kPsPerUs + 1, this, kFgfcExpire, f.id);
        break;
      case FgfcApplyStatus::fall_back_to_class_pause:
        // No room to pause this flow alone: the whole class stops, as a NIC without FGFC would under PFC.
        ++counters_.fgfc_class_fallbacks;
        class_paused_until_[f.tclass] = std::max(class_paused_until_[f.tclass], now + frame.period);
        if (f.paused_since == kNever) f.paused_since = fabric_.now();
        fabric_.schedule((now + frame.period) * kPsPerUs + 1, this, kFgfcExpire, f.id);
        break;
      case FgfcApplyStatus::resumed:
        resume(f, false);
        break;
      case FgfcApplyStatus::xon_unknown_flow:
        // The flow was paused through its class (cache full), or its pause already expired.
        if (class_paused_until_[f.tclass] > now) class_paused_until_[f.tclass] = now;
        if (f.paused_since != kNever) resume(f, false);
        break;
    }
  }
  fabric_.pool().put(p);
  try_send();
}

void Nic::resume(Flow& f, bool timeout) {
  if (f.paused_since != kNever) {
    f.drain_ps += fabric_.now() - f.paused_since;
    f.paused_since = kNever;
  }
  if (timeout) ++counters_.fgfc_timeouts;
}

void Nic::receive_pause(Packet* p) {
  // Hop-by-hop flow control from the first switch: PFC stops a traffic class, the per-flow schemes
  // (FlowSail, BFC-style, ideal) one flow. A flow stays stopped until its RESUME.
  const bool pause = p->type == PacketType::pause;
  if (pause) ++counters_.pause_frames;
  else ++counters_.resume_frames;
  if (p->fc_pfc) {
    pfc_paused_[p->tclass % pfc_paused_.size()] = pause;
  } else if (p->flow < flows_.size() && flows_[p->flow].src == host_) {
    // Counted: the first switch may pause a flow from two of its counters at once.
    Flow& f = flows_[p->flow];
    if (pause && f.hop_pauses++ == 0) f.hop_paused_since = fabric_.now();
    if (!pause && f.hop_pauses > 0 && --f.hop_pauses == 0) f.hop_paused_ps += fabric_.now() - f.hop_paused_since;
  }
  fabric_.pool().put(p);
  if (!pause) try_send();
}

bool Nic::may_send(Flow& f, std::uint32_t payload) {
  if (f.hop_pauses || pfc_paused_[f.tclass % pfc_paused_.size()]) return false;
  if (fc_table_) {
    if (f.fc_draining) return false;
    // Overflow policy hold: a flow without an entry waits for one.
    if (config_.flowcut->overflow == FlowcutOverflow::hold && !fc_table_->lookup(WideKey::from_id(f.id)) &&
        fc_table_->occupancy() == fc_table_->config().entries) {
      return false;
    }
    return true;
  }
  if (!fgfc_cache_) return true;
  const std::uint64_t now = now_us();
  if (class_paused_until_[f.tclass] > now) return false;
  const FgfcLookup lk = fgfc_cache_->lookup(now, f.hash);
  if (!lk.paused) {
    if (f.paused_since != kNever) resume(f, true);  // its period ran out before any XON
    return true;
  }
  return lk.credit_left >= payload && fgfc_cache_->consume_credit(now, f.hash, payload);
}

void Nic::nic_flowcut_send(Flow& f, Packet* p) {
  const WideKey key = WideKey::from_id(f.id);
  if (const auto idx = fc_table_->lookup(key)) {
    fc_table_->add_bytes(*idx, p->payload_bytes);
    p->fc_tracked = 1;
    p->fc_epoch = fc_epoch_[*idx];
    return;
  }
  std::uint32_t& shadow = shadow_[f.id % shadow_.size()];
  if (f.flowcuts > 0 && shadow == 0) {
    // A new flowcut takes new ECMP entropy: another UDP source port (the destination restores it).
    f.key.src_port = static_cast<std::uint16_t>(49152 + rng_.below(16384));
    const auto bytes = f.key.bytes();
    f.hash = crc32(bytes.data(), bytes.size());
    ++f.path_changes;
    ++fc_counters_.path_changes;
    p->key = f.key;
    p->flow_hash = f.hash;
  }
  const InsertResult r = fc_table_->insert(key, static_cast<std::uint16_t>(f.key.src_port & 0xff), 0);
  if (r.status == InsertStatus::ok) {
    fc_table_->add_bytes(r.index, p->payload_bytes);
    p->fc_tracked = 1;
    fc_epoch_[r.index] = ++next_epoch_;
    p->fc_epoch = fc_epoch_[r.index];
    ++f.flowcuts;
    ++fc_counters_.flowcuts;
    return;
  }
  ++fc_counters_.overflows;
  ++fc_counters_.untracked_packets;
  shadow += p->payload_bytes;
}

void Nic::nic_flowcut_ack(Flow& f, const Packet* ack) {
  const FlowcutParams& fc = *config_.flowcut;
  if (!(ack->fc_tracked & 1u)) {
    std::uint32_t& shadow = shadow_[f.id % shadow_.size()];
    shadow -= std::min(shadow, ack->ack_bytes);
    return;
  }
  const WideKey key = WideKey::from_id(f.id);
  const auto idx = fc_table_->lookup(key);
  if (!idx || fc_epoch_[*idx] != ack->fc_epoch) {
    ++fc_counters_.acks_unmatched;  // its flowcut's entry was released early (early resume)
    return;
  }
  const FlowcutEntry e = fc_table_->read(*idx);
  if (!f.fc_draining && e.inflight > ack->ack_bytes) {
    const Ps rtt = fabric_.now() - ack->echo_ts;
    const Ps term = out_link_->serialization(ack->ack_bytes + config_.header_bytes) * std::max<unsigned>(1, ack->echo_hops);
    const RttMonitor::Update u =
        rtt_->update(rtt > term ? rtt - term : 1, ack->echo_hops, e.rtt_avg, e.last_rtt, e.rtt_diff_avg, e.last_rtt == 0);
    fc_table_->set_rtt(*idx, u.avg, u.last, u.diff_avg);
    if (u.drain && (fc.min_packets_left == 0 || f.packets - f.next_psn >= fc.min_packets_left) && f.next_psn < f.packets) {
      fc_table_->set_drain(*idx, true);
      f.fc_draining = true;
      f.paused_since = fabric_.now();
      ++f.drains;
      ++fc_counters_.drains;
    }
  }
  const AckResult r = fc_table_->ack_subtract(key, ack->ack_bytes);
  const bool early = !r.deleted && f.fc_draining && fc.early_resume_packets > 0 &&
                     r.remaining <= std::uint64_t{fc.early_resume_packets} * config_.mtu_bytes;
  if (early) {
    fc_table_->erase(key);
    ++fc_counters_.early_resumes;
  }
  if ((r.deleted || early) && f.fc_draining) {
    f.fc_draining = false;
    ++fc_counters_.drains_completed;
    resume(f, false);
  }
}

// ---- Reorder transport: rearrange buffer with ACK / NACK (Martinez et al., IPDPS 2005) ---------------------

void Nic::reorder_receive(Flow& f, Packet* p) {
  ++counters_.data_packets_received;
  counters_.received_bytes += p->size_bytes;
  if (p->retransmit) counters_.waste_bytes += p->size_bytes;
  const bool pair = config_.pair_connections;
  const std::uint32_t mask = rb_->config().seq_bits >= 32 ? ~0u : (1u << rb_->config().seq_bits) - 1u;
  // The sequence number on the wire: the PSN, or with pair connections the message's position in the pair.
  const std::uint32_t psn = p->psn;
  const std::uint64_t position = pair ? f.seq_base + psn : psn;
  const std::uint64_t expected = pair ? pairs_[f.connection].delivered : rb_->expected(f.connection);
  // Order as the packets arrive from the network (the application's order is checked below).
  if (position > expected) {
    const auto degree = static_cast<std::uint32_t>(std::min<std::uint64_t>(position - expected, 0xffffffffu));
    ++f.ooo_packets;
    ++counters_.ooo_packets;
    f.max_ooo_degree = std::max(f.max_ooo_degree, degree);
    counters_.max_ooo_degree = std::max(counters_.max_ooo_degree, degree);
  } else if (position < expected) {
    ++f.duplicates;
    ++counters_.duplicates;
    ++counters_.spurious_resends;
  }
  if (psn + 1 < f.highest_psn) {
    ++f.late_packets;
    ++counters_.late_packets;
  }
  f.highest_psn = std::max(f.highest_psn, psn + 1);
  const std::uint32_t unit = config_.reorder_unit_bytes;
  const std::uint32_t units = (p->size_bytes + unit - 1) / unit;
  const std::vector<ReorderEvent> events =
      rb_->arrive(f.connection, pair ? static_cast<std::uint32_t>(position) & mask : psn, units);
  {
    const std::uint64_t cap = std::max<std::uint64_t>(1, rb_->config().memory == ReorderMemory::dynamic_pool
                                                             ? rb_->config().pool_units
                                                             : std::uint64_t{rb_->config().buffer_units} * rb_->config().connections);
    ++rb_histogram_[std::min<std::uint64_t>(15, rb_->total_units() * 16 / (cap + 1))];
  }
  // With pair connections an event may concern another message of the pair: its position in the pair is
  // found from the connection's delivered count (deliveries come in order) and the event's offset.
  auto target = [&](const ReorderEvent& ev, std::uint64_t at, std::uint32_t& local) -> Flow& {
    if (!pair) {
      local = ev.sn;
      return f;
    }
    Flow& g = pair_flow_at(f.connection, at);
    local = static_cast<std::uint32_t>(at - g.seq_base);
    return g;
  };
  for (const ReorderEvent& ev : events) {
    std::uint32_t sn = 0;
    switch (ev.kind) {
      case ReorderEventKind::deliver: {
        Flow& g = target(ev, pair ? pairs_[f.connection].delivered++ : 0, sn);
        deliver_to_application(g, sn);
        g.expected_psn = sn + 1;
        complete_if_delivered(g);
        break;
      }
      case ReorderEventKind::ack: {
        // Cumulative: the last packet delivered in order (or, for a duplicate, the one before the expected).
        if (pair && pairs_[f.connection].delivered == 0) break;  // nothing delivered on this pair yet
        Flow& g = target(ev, pair ? pairs_[f.connection].delivered - 1 : 0, sn);
        send_control(nullptr, g, PacketType::ack, sn);
        break;
      }
      case ReorderEventKind::nack: {
        ++counters_.nacks_sent;
        const std::uint64_t at = pair ? pairs_[f.connection].delivered + ((ev.sn - rb_->expected(f.connection)) & mask) : 0;
        Flow& g = target(ev, at, sn);
        send_control(nullptr, g, PacketType::nack, sn);
        break;
      }
      case ReorderEventKind::stored: break;
    }
  }
  fabric_.pool().put(p);
  try_send();
}

void Nic::send_control(Packet*, Flow& f, PacketType type, std::uint32_t sn) {
  if (control_.full()) {
    ++counters_.control_dropped;
    return;
  }
  Packet* a = fabric_.pool().get();
  a->type = type;
  a->flow = f.id;
  a->src_host = f.dst;
  a->dst_host = f.src;
  a->key = f.key;
  a->flow_hash = f.hash;
  a->ack_psn = sn;
  a->size_bytes = config_.ack_bytes;
  a->vc = kControlVc;
  echo_ecn(f, a);
  control_.push_back(a);
}

void Nic::reorder_ack_upto(Flow& f, std::uint32_t sn) {
  // Cumulative: everything up to sn is delivered in order.
  if (sn >= f.packets || sn + 1 <= f.acked_upto) return;
  for (std::uint32_t psn = f.acked_upto; psn <= sn; ++psn) {
    if (f.acked[psn]) continue;
    f.acked[psn] = true;
    ++f.acked_count;
    f.inflight_bytes -= std::min<std::uint64_t>(f.inflight_bytes, payload_of(f, psn));
    if (f.injection_limited) ++f.li_credits;
  }
  f.acked_upto = sn + 1;
  f.last_ack = fabric_.now();
  if (f.injection_limited && f.acked_upto >= f.rejected_max) {
    f.injection_limited = 0;  // every rejected packet acknowledged: back to unlimited injection
    f.li_credits = 0;
  }
  if (f.acked_count == f.packets) f.sender_done = true;
}

void Nic::reorder_source_ack(Flow& f, const Packet* p) {
  counters_.received_bytes += p->size_bytes;
  counters_.waste_bytes += p->size_bytes;
  const std::uint32_t sn = p->ack_psn;
  if (p->type == PacketType::ack) {
    reorder_ack_upto(f, sn);
    // Pair connections: the ACK covers the pair's earlier messages too.
    for (std::uint32_t prev = f.pair_prev; prev != 0xffffffffu; prev = flows_[prev].pair_prev) {
      Flow& g = flows_[prev];
      if (g.acked_upto >= g.packets) break;
      reorder_ack_upto(g, g.packets - 1);
    }
    return;
  }
  // NACK sn: the destination rejected it; send it again.
  if (sn >= f.packets || sn < f.acked_upto || f.acked[sn]) return;
  f.resend.insert(sn);
  f.inflight_bytes -= std::min<std::uint64_t>(f.inflight_bytes, payload_of(f, sn));
  if (config_.injection != NicConfig::Injection::unlimited) {
    if (!f.injection_limited) {
      f.injection_limited = 1;
      f.li_credits = 0;
    }
    f.rejected_max = std::max(f.rejected_max, sn + 1);
  }
  if (std::find(active_.begin(), active_.end(), f.id) == active_.end()) active_.push_back(f.id);
}

bool Nic::injection_allows(Flow& f) {
  if (config_.transport != TransportKind::reorder || !f.injection_limited) return true;
  // Pair connections: injection state is kept per message, but ACKs come for whichever message of the pair
  // the destination is delivering. The packet the destination expects (this message's first unacknowledged
  // one, every earlier message of the pair acknowledged) always finds room, so it may always go; without
  // this a message could wait for ACKs that only its own expected packet can bring.
  if (config_.pair_connections) {
    const std::uint32_t next = f.resend.empty() ? f.next_psn : *f.resend.begin();
    const bool earlier_done = f.pair_prev == 0xffffffffu || flows_[f.pair_prev].acked_upto >= flows_[f.pair_prev].packets;
    if (next == f.acked_upto && earlier_done) return true;
  }
  // Adap-LI: one packet per acknowledged packet; with nothing in flight (every packet acknowledged or
  // rejected) no ACK will come, and the destination has room: the next packet may go.
  if (config_.injection == NicConfig::Injection::adap_li) return f.li_credits > 0 || f.inflight_bytes == 0;
  // Adap-LW: only what fits in the destination's buffer, beyond the packet it expects.
  const ReorderBufferConfig& rb = config_.reorder_buffer;
  const std::uint32_t window = rb.buffer_units / std::max<std::uint32_t>(1, rb.max_packet_units) + 1;
  const std::uint32_t psn = f.resend.empty() ? f.next_psn : *f.resend.begin();
  return psn < f.acked_upto + window;
}

// ---- Go-back-N transport (RoCE-like) ---------------------------------------------------------------------

void Nic::gbn_receive(Flow& f, Packet* p) {
  ++counters_.data_packets_received;
  counters_.received_bytes += p->size_bytes;
  if (p->retransmit) counters_.waste_bytes += p->size_bytes;
  const std::uint32_t psn = p->psn;
  if (psn == f.expected_psn) {
    // In order: delivered at once, acknowledged cumulatively.
    f.received[psn] = true;
    f.delivered_bytes += p->payload_bytes;
    counters_.payload_delivered += p->payload_bytes;
    f.app_next = psn + 1;
    ++f.expected_psn;
    f.highest_psn = std::max(f.highest_psn, psn + 1);
    complete_if_delivered(f);
    send_control(nullptr, f, PacketType::ack, psn);
  } else if (psn > f.expected_psn) {
    // Out of order: dropped. One NACK per gap asks the source to go back to the expected PSN.
    ++f.ooo_packets;
    ++counters_.ooo_packets;
    f.max_ooo_degree = std::max(f.max_ooo_degree, psn - f.expected_psn);
    counters_.max_ooo_degree = std::max(counters_.max_ooo_degree, psn - f.expected_psn);
    ++counters_.receiver_drops;
    if (f.gbn_nacked != f.expected_psn) {
      f.gbn_nacked = f.expected_psn;
      ++counters_.nacks_sent;
      send_control(nullptr, f, PacketType::nack, f.expected_psn);
    }
  } else {
    // A duplicate of a delivered packet: acknowledge what has been delivered.
    ++f.duplicates;
    ++counters_.duplicates;
    ++counters_.spurious_resends;
    send_control(nullptr, f, PacketType::ack, f.expected_psn - 1);
  }
  fabric_.pool().put(p);
  try_send();
}

void Nic::gbn_source_ack(Flow& f, const Packet* p) {
  counters_.received_bytes += p->size_bytes;
  counters_.waste_bytes += p->size_bytes;
  const std::uint32_t sn = p->ack_psn;
  if (p->type == PacketType::ack) {
    if (sn < f.packets && sn + 1 > f.acked_upto) {
      for (std::uint32_t psn = f.acked_upto; psn <= sn; ++psn) {
        if (f.acked[psn]) continue;
        f.acked[psn] = true;
        ++f.acked_count;
      }
      f.acked_upto = sn + 1;
      f.last_ack = fabric_.now();
      if (f.acked_count == f.packets) f.sender_done = true;
    }
  } else if (sn < f.packets && sn >= f.acked_upto && sn < f.next_psn) {
    // NACK: everything from sn on is resent.
    f.next_psn = sn;
    if (std::find(active_.begin(), active_.end(), f.id) == active_.end()) active_.push_back(f.id);
  }
  // In flight: the payload of PSNs sent beyond the last cumulative ACK (only the last packet is short).
  auto offset = [&](std::uint32_t psn) { return std::min<std::uint64_t>(f.size_bytes, std::uint64_t{psn} * config_.mtu_bytes); };
  f.inflight_bytes = f.next_psn > f.acked_upto ? offset(f.next_psn) - offset(f.acked_upto) : 0;
}

// ---- Selective repeat with direct data placement ------------------------------------------------------------

void Nic::sr_receive(Flow& f, Packet* p) {
  ++counters_.data_packets_received;
  counters_.received_bytes += p->size_bytes;
  if (p->retransmit) counters_.waste_bytes += p->size_bytes;
  SackReceiver& rx = *f.sr_rx;
  const std::uint32_t psn = p->psn;
  const std::uint32_t before = rx.cumulative();
  if (!rx.place(psn)) {
    // Placed already: this transmission (or the one before it) was not needed.
    ++f.duplicates;
    ++counters_.duplicates;
    ++counters_.spurious_resends;
  } else {
    // Written at its offset at once; order as the packets arrive from the network:
    if (psn != before) {
      ++f.ooo_packets;
      ++counters_.ooo_packets;
      f.max_ooo_degree = std::max(f.max_ooo_degree, psn - before);
      counters_.max_ooo_degree = std::max(counters_.max_ooo_degree, psn - before);
    }
    if (psn + 1 < f.highest_psn) {
      ++f.late_packets;
      ++counters_.late_packets;
    }
    f.highest_psn = std::max(f.highest_psn, psn + 1);
    f.received[psn] = true;
    // The application sees the bytes below the cumulative point, in order.
    for (std::uint32_t sn = before; sn < rx.cumulative(); ++sn) deliver_to_application(f, sn);
    f.expected_psn = rx.cumulative();
    complete_if_delivered(f);
  }
  // One SACK per data packet: the cumulative point and the ranges above it.
  if (control_.full()) {
    ++counters_.control_dropped;
  } else {
    Packet* a = fabric_.pool().get();
    a->type = PacketType::ack;
    a->flow = f.id;
    a->src_host = f.dst;
    a->dst_host = f.src;
    a->key = f.key;
    a->flow_hash = f.hash;
    a->ack_psn = rx.cumulative();
    SackBlock blocks[Packet::kMaxSackBlocks];
    const std::size_t n = rx.blocks(psn, blocks, config_.sr_sack_blocks);
    a->sack_n = static_cast<std::uint8_t>(n);
    for (std::size_t b = 0; b < n; ++b) {
      a->sack_start[b] = blocks[b].start;
      a->sack_len[b] = static_cast<std::uint16_t>(std::min<std::uint32_t>(0xffff, blocks[b].end - blocks[b].start));
    }
    a->size_bytes = config_.ack_bytes + static_cast<std::uint32_t>(8 * n);
    a->vc = kControlVc;
    echo_ecn(f, a);
    ++counters_.sacks_sent;
    counters_.sack_blocks_sent += n;
    control_.push_back(a);
  }
  fabric_.pool().put(p);
  try_send();
}

void Nic::sr_source_ack(Flow& f, const Packet* p) {
  counters_.received_bytes += p->size_bytes;
  counters_.waste_bytes += p->size_bytes;
  SackBlock blocks[Packet::kMaxSackBlocks];
  const std::size_t n = std::min<std::size_t>(p->sack_n, Packet::kMaxSackBlocks);
  for (std::size_t b = 0; b < n; ++b) blocks[b] = SackBlock{p->sack_start[b], p->sack_start[b] + p->sack_len[b]};
  SrSender& tx = *f.sr_tx;
  sr_result_.clear();
  tx.on_sack(p->ack_psn, blocks, n, sr_result_);
  for (const std::uint32_t psn : sr_result_.acked) {
    f.acked[psn] = true;
    ++f.acked_count;
  }
  f.acked_upto = tx.cumulative();
  if (!sr_result_.acked.empty()) f.last_ack = fabric_.now();
  if (f.acked_count == f.packets) f.sender_done = true;
  // Fast retransmit: each hole presumed lost goes before new data, lowest PSN first, without waiting for
  // the timeout.
  for (const std::uint32_t psn : sr_result_.lost) f.resend.insert(psn);
  counters_.fast_retransmits += sr_result_.lost.size();
  f.inflight_bytes = tx.inflight_bytes();
  if (!sr_result_.lost.empty() && std::find(active_.begin(), active_.end(), f.id) == active_.end())
    active_.push_back(f.id);
}

void Nic::sr_timeout(Flow& f) {
  // No progress for a whole timeout (a lost tail, or a lost resend with too little sent after it):
  // everything in flight is presumed lost and resent.
  ++f.timeouts;
  const Ps now = fabric_.now();
  sr_lost_.clear();
  f.sr_tx->on_timeout(sr_lost_);
  for (const std::uint32_t psn : sr_lost_) f.resend.insert(psn);
  counters_.timeout_retransmits += sr_lost_.size();
  f.inflight_bytes = f.sr_tx->inflight_bytes();
  f.last_ack = now;
  if (std::find(active_.begin(), active_.end(), f.id) == active_.end()) active_.push_back(f.id);
  arm_timer(f, now + config_.rto_ps);
  try_send();
}

// ---- DCTCP-like congestion control --------------------------------------------------------------------------

void Nic::echo_ecn(Flow& f, Packet* ack) {
  ack->echo_rx_bytes = static_cast<std::uint32_t>(f.rx_bytes);  // modulo 2^32
  ack->echo_ce_bytes = static_cast<std::uint32_t>(f.rx_ce_bytes);
  ack->ece = f.rx_ce_bytes != f.echoed_ce_bytes ? 1 : 0;
  f.echoed_ce_bytes = f.rx_ce_bytes;
}

void Nic::cc_on_ack(Flow& f, const Packet* p) {
  // The counts run modulo 2^32: a difference in the lower half of the range is new, one in the upper half
  // is an older echo (an ACK overtaken by a later one), which brings nothing.
  auto advance = [](std::uint32_t& seen, std::uint32_t echoed) -> std::uint64_t {
    const std::uint32_t d = echoed - seen;
    if (d >= 0x80000000u) return 0;
    seen = echoed;
    return d;
  };
  const std::uint64_t rx = advance(f.seen_rx_bytes, p->echo_rx_bytes);
  const std::uint64_t ce = advance(f.seen_ce_bytes, p->echo_ce_bytes);
  if (p->ece) ++counters_.ece_acks;
  // The basic transport acknowledges packet by packet: its cumulative point follows the acknowledged ones.
  while (f.acked_upto < f.packets && f.acked[f.acked_upto]) ++f.acked_upto;
  const std::uint64_t acked = std::uint64_t{f.acked_count - f.cc_acked_seen} * config_.mtu_bytes;
  f.cc_acked_seen = f.acked_count;
  f.cc->on_ack(acked, rx, ce, f.acked_upto, f.sent_high);
}

}  // namespace netasic
