// Flowcut at the source NIC: the FGFC paused-flow cache (switch variants) and the NIC-only flow table. Moved
// here from nic.cpp as they were.
#include "tlm/model/nic.h"

#include <algorithm>

namespace netasic {

void Nic::fgfc_expire(Flow& f) {
  if (f.paused_since != kNever && fgfc_cache_ && !fgfc_cache_->lookup(now_us(), f.hash).paused &&
      class_paused_until_[f.tclass] <= now_us())
    resume(f, true);
  try_send();
}

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

}  // namespace netasic
