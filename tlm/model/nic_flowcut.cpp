// Flowcut at the source NIC: the FGFC paused-flow cache (switch variants: the source's reaction to the
// switches' frames), and the NIC-only variant, whose table, ACK handling, RTT monitor, drains and early
// resume are the Flowcut engine's (flowcut_engine.h, NIC site) with this NIC as its FlowcutOwner.
#include "tlm/model/nic.h"

#include <algorithm>

namespace netasic {

const FlowcutCounters Nic::kNoFlowcut{};

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
        if (f.paused_since == kNever) hold(f, FlowHold::fgfc_pause);
        fabric_.schedule((now + frame.period) * kPsPerUs + 1, this, kFgfcExpire, f.id);
        break;
      case FgfcApplyStatus::fall_back_to_class_pause: {
        // No room to pause this flow alone: the whole class stops, as a NIC without FGFC would under PFC,
        // until this flow and every other flow that fell back is resumed or its period ends.
        ++counters_.fgfc_class_fallbacks;
        auto& fallbacks = class_fallbacks_[f.tclass];
        auto it = std::find_if(fallbacks.begin(), fallbacks.end(),
                               [&](const ClassFallback& c) { return c.flow_id == frame.flow_id; });
        if (it == fallbacks.end()) it = fallbacks.insert(fallbacks.end(), ClassFallback{frame.flow_id, 0});
        it->until = now + frame.period;
        class_paused_until_[f.tclass] = std::max(class_paused_until_[f.tclass], it->until);
        if (f.paused_since == kNever) hold(f, FlowHold::class_pause);
        fabric_.schedule((now + frame.period) * kPsPerUs + 1, this, kFgfcExpire, f.id);
        break;
      }
      case FgfcApplyStatus::resumed:
        end_class_fallback(f.tclass, frame.flow_id, now);
        resume(f, false);
        break;
      case FgfcApplyStatus::xon_unknown_flow:
        // The flow was paused through its class (cache full), or its pause already expired. An XON of a
        // flow that did not fall back leaves the class as it is.
        end_class_fallback(f.tclass, frame.flow_id, now);
        if (f.paused_since != kNever) resume(f, false);
        break;
    }
  }
  fabric_.pool().put(p);
  try_send();
}

void Nic::end_class_fallback(unsigned tclass, std::uint32_t flow_id, std::uint64_t now) {
  auto& fallbacks = class_fallbacks_[tclass];
  if (fallbacks.empty()) return;
  fallbacks.erase(std::remove_if(fallbacks.begin(), fallbacks.end(),
                                 [&](const ClassFallback& c) { return c.flow_id == flow_id || c.until <= now; }),
                  fallbacks.end());
  std::uint64_t until = 0;
  for (const auto& c : fallbacks) until = std::max(until, c.until);
  class_paused_until_[tclass] = until;
}

void Nic::hold(Flow& f, FlowHold why) {
  f.paused_since = fabric_.now();
  if (flow_observer_) flow_observer_->on_hold(f.id, why, f.paused_since);
}

void Nic::resume(Flow& f, bool timeout) {
  if (f.paused_since != kNever) {
    f.drain_ps += fabric_.now() - f.paused_since;
    f.paused_since = kNever;
    if (flow_observer_) flow_observer_->on_release(f.id, false, fabric_.now());
  }
  if (timeout) ++counters_.fgfc_timeouts;
}

bool Nic::may_send(Flow& f, std::uint32_t payload) {
  if (f.hop_pauses || pfc_paused_[f.tclass % pfc_paused_.size()]) return false;
  // NIC-only: a draining flow waits for its drain to end; under overflow = hold, a flow without an entry
  // waits for one.
  if (flowcut_) return !f.fc_draining && !flowcut_->must_hold(WideKey::from_id(f.id));
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
  // The flow's table key and shadow slot are the id this NIC assigned it.
  const FlowcutEngine::Sent s =
      flowcut_->send_at_source(WideKey::from_id(f.id), f.id, p->payload_bytes, [&](bool shadowed) {
        // A new flowcut takes new ECMP entropy, another UDP source port (the destination restores it), when
        // the flow was drained off a congested path (De Sensi et al., Section II-D), or at every new flowcut
        // with flowcut.nic_new_path = every_flowcut; never while untracked bytes of the flow may still be in
        // flight on the old path.
        const bool move = flowcut_->params().nic_new_path == FlowcutNicNewPath::every_flowcut || f.fc_move;
        if (f.flowcuts > 0 && !shadowed && move) {
          f.fc_move = false;
          f.key.src_port = static_cast<std::uint16_t>(49152 + rng_.below(16384));
          const auto bytes = f.key.bytes();
          f.hash = crc32(bytes.data(), bytes.size());
          ++f.path_changes;
          ++flowcut_->counters().path_changes;
          p->key = f.key;
          p->flow_hash = f.hash;
        }
        return static_cast<std::uint16_t>(f.key.src_port & 0xff);  // the entry's port tag
      });
  if (!s.tracked) return;
  p->fc_tracked = 1;
  p->fc_epoch = s.epoch;
  if (s.new_flowcut) {
    ++f.flowcuts;
    if (flow_observer_) flow_observer_->on_flowcut(f.id, f.flowcuts, fabric_.now());
  }
}

void Nic::nic_flowcut_ack(Flow& f, const Packet* ack) {
  FlowcutEngine::Ack a;
  a.key = WideKey::from_id(f.id);
  a.shadow_slot = f.id;
  a.bytes = ack->ack_bytes;
  a.epoch = ack->fc_epoch;
  a.tracked = ack->fc_tracked & 1u;
  a.at_source = true;  // the NIC's table is the flow's only one
  a.echo_ts = ack->echo_ts;
  a.hops = ack->echo_hops;
  a.packets_left = f.packets - f.next_psn;
  a.more_to_send = f.next_psn < f.packets;
  a.source = FlowcutSource{host_, f.hash, f.id};
  flowcut_->on_ack(a);
}

Ps Nic::ack_transmission_term(std::uint16_t, std::uint32_t ack_bytes, unsigned hops) const {
  // The data packet's size on this NIC's link (the entry's port tag is no output here), once per hop.
  return out_link_->serialization(ack_bytes + config_.header_bytes) * std::max<unsigned>(1, hops);
}

void Nic::pause_source(const FlowcutSource& s) {
  Flow& f = flows_[s.flow];
  f.fc_draining = true;
  hold(f, FlowHold::nic_drain);
  ++f.drains;
}

void Nic::resume_source(const FlowcutSource& s) {
  Flow& f = flows_[s.flow];
  f.fc_draining = false;
  f.fc_move = true;
  resume(f, false);
}

}  // namespace netasic
