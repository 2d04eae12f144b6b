#include "tlm/model/link.h"

#include <fmt/format.h>

#include "tlm/common/error.h"

namespace netasic {

namespace {
enum LinkEvent : std::uint32_t { kCreditArrives = 1 };
}

Link::Link(const sc_core::sc_module_name& name, Fabric& fabric, const LinkConfig& config, std::uint64_t seed,
           std::uint32_t index)
    : sc_core::sc_module(name),
      in("in"),
      out("out"),
      fabric_(fabric),
      config_(config),
      rate_gbps_(config.rate_gbps * config.rate_scale),
      rng_(seed, 0x4c494e4b00000000ULL + index),
      index_(index) {
  if (!(rate_gbps_ > 0)) throw InputError(fmt::format("link {}: rate must be > 0 Gb/s", index));
  hot_.fabric = &fabric_;
  hot_.ps_per_byte = 8000.0 / rate_gbps_;
  hot_.prop_ps = config_.prop_ps;
  hot_.overhead_bytes = config_.overhead_bytes;
  hot_.lossless = config_.lossless;
  refresh_slow();
  hot_.returns = hot_.first_returns.data();
  hot_.credit_mask = static_cast<std::uint32_t>(hot_.first_returns.size() - 1);
  if (config.vc_credit_bytes.size() > kMaxVcs)
    throw InputError(fmt::format("link {}: {} virtual channels, at most {}", index, config.vc_credit_bytes.size(), kMaxVcs));
  vcs_ = config.vc_credit_bytes.size();
  for (std::size_t v = 0; v < vcs_; ++v) hot_.credits[v] = hot_.credit_limit[v] = config.vc_credit_bytes[v];
  in.bind(fw_);
  out.bind(bw_);
}

bool Link::receive(std::uint16_t, Packet* p, Ps delay) { return transmit(p, delay, serialization(p->size_bytes)); }

void Link::transmission_overlaps() const {
  throw ModelError(fmt::format("{}: transmission overlaps the previous one", name()));
}

// Errors, observers, the causal order and cut links: false when the packet was corrupted (and dropped).
bool Link::slow_receive(Packet* p, Ps start, Ps ser, Ps delay) {
  // The error draw only where errors can happen, so an observer leaves every random stream as it was.
  const bool corrupted = config_.error_rate > 0 && rng_.uniform() < config_.error_rate;
  if (observer_) observer_->on_wire(*this, *p, start, ser, corrupted);
  if (corrupted) {
    // A corrupted packet is dropped at the receiver's MAC; its buffer space was never used.
    ++corrupted_;
    if (config_.lossless) return_credits(p->vc, p->size_bytes);
    fabric_.pool().put(p);
    return false;
  }
  if (!fabric_.causal()) {
    hot_.rx(p, delay + hot_.prop_ps);
    return true;
  }
  // The receiver's call is one child of the sending event, whether it is made now or when the window ends.
  const CausalContext call = fabric_.fork();
  if (cut_) {
    cut_->deliver(*this, p, fabric_.now() + delay + hot_.prop_ps, call);
    return true;
  }
  const CausalContext saved = fabric_.swap_context(call);
  hot_.rx(p, delay + hot_.prop_ps);
  fabric_.swap_context(saved);
  return true;
}

void Link::set_cut(LinkCut* cut) {
  if (cut && !fabric_.causal()) throw ModelError(fmt::format("{}: a cut link needs the causal event order", name()));
  cut_ = cut;
  hot_.cut = cut != nullptr;
  refresh_slow();
}

void Link::deliver_held(Packet* p, Ps head, const CausalContext& ctx) {
  const Ps now = hot_.fabric->now();
  if (head < now) throw ModelError(fmt::format("{}: a held frame is due before the end of its window", name()));
  const CausalContext saved = fabric_.swap_context(ctx);
  hot_.rx(p, head - now);
  fabric_.swap_context(saved);
}

void Link::end_of_elaboration() { hot_.rx = resolve_receiver(out.operator->(), foreign_, fabric_); }

void Link::credit_underflow(std::uint8_t vc) const {
  throw ModelError(fmt::format("{}: sender committed more than the receiver's buffer on VC {}", name(), vc));
}

void Link::credit_overflow(std::uint8_t vc) const {
  throw ModelError(fmt::format("{}: credits on VC {} exceed the receiver buffer", name(), vc));
}

void Link::schedule_wake(Ps at) {
  hot_.wake_at = at;
  schedule_credit_arrival(at);
}

// Under the causal order the arrival of the credits made at `at` - propagation has the same place among
// simultaneous events whichever event scheduled it (the return, or a sender that started waiting after it).
// Through hot_.fabric, not fabric_: the reference sits in a line of the link that the per-packet path does
// not otherwise touch (at 3,456 hosts that line's miss was most of this function's time).
void Link::schedule_credit_arrival(Ps at) {
  Fabric& fabric = *hot_.fabric;
  if (fabric.causal())
    fabric.schedule_keyed(at, at - hot_.prop_ps, causal_mix(0x4c494e4b00000000ULL + index_, at), this, kCreditArrives);
  else
    fabric.schedule(at, this, kCreditArrives, 0);
}

void Link::grow_returns() {
  // Rare: only until the ring fits the most returns ever in flight at once.
  std::vector<CreditReturn> bigger(std::size_t{hot_.credit_mask + 1} * 2);
  for (std::uint32_t k = hot_.credit_head; k != hot_.credit_tail; ++k)
    bigger[k - hot_.credit_head] = hot_.returns[k & hot_.credit_mask];
  hot_.credit_tail -= hot_.credit_head;
  hot_.credit_head = 0;
  returns_.swap(bigger);
  hot_.returns = returns_.data();
  hot_.credit_mask = static_cast<std::uint32_t>(returns_.size() - 1);
}

// wait_for_credit with returns in flight: the first that brings `vc` up to `bytes` wakes the sender (unless
// a wake-up is due before it).
void Link::wait_for_returns(std::uint8_t vc, std::uint32_t bytes) {
  std::int64_t held = hot_.credits[vc];
  for (std::uint32_t k = hot_.credit_head; k != hot_.credit_tail; ++k) {
    const CreditReturn& r = hot_.returns[k & hot_.credit_mask];
    if (r.vc != vc) continue;
    held += r.bytes;
    if (held >= static_cast<std::int64_t>(bytes)) {
      if (r.at < hot_.wake_at) schedule_wake(r.at);
      return;
    }
  }
  lacking(vc, static_cast<std::uint32_t>(static_cast<std::int64_t>(bytes) - held));
}

void Link::on_event(std::uint32_t kind, std::uint64_t) {
  if (kind != kCreditArrives) return;
  if (hot_.fabric->now() != hot_.wake_at) return;  // replaced by an earlier wake-up
  hot_.wake_at = kNever;
  absorb_due_credits();
  hot_.waiting_vcs = 0;
  // The sender retries; if it still lacks credit it waits again (has_credit re-arms the wake-up).
  if (sender_) sender_->on_credit(sender_port_);
}

}  // namespace netasic
