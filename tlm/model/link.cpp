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
  ps_per_byte_ = 8000.0 / rate_gbps_;
  if (config.vc_credit_bytes.size() > kMaxVcs)
    throw InputError(fmt::format("link {}: {} virtual channels, at most {}", index, config.vc_credit_bytes.size(), kMaxVcs));
  vcs_ = config.vc_credit_bytes.size();
  for (std::size_t v = 0; v < vcs_; ++v) credits_[v] = credit_limit_[v] = config.vc_credit_bytes[v];
  in.bind(fw_);
  out.bind(bw_);
}

void Link::receive(std::uint16_t, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  Packet* p = packet_of(payload);
  const Ps start = fabric_.now() + delay.value();
  if (start < busy_until_) throw ModelError(fmt::format("{}: transmission overlaps the previous one", name()));
  const Ps ser = serialization(p->size_bytes);
  busy_until_ = start + ser;
  busy_time_ += ser;
  ++packets_;
  wire_bytes_ += p->size_bytes + config_.overhead_bytes;
  p->ser_ps = ser;
  ++p->hops;
  if (config_.error_rate > 0 && rng_.uniform() < config_.error_rate) {
    // A corrupted packet is dropped at the receiver's MAC; its buffer space was never used.
    ++corrupted_;
    if (config_.lossless) return_credits(p->vc, p->size_bytes);
    payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    fabric_.pool().put(p);
    return;
  }
  sc_core::sc_time arrive = delay + sc_core::sc_time::from_value(config_.prop_ps);
  out->b_transport(payload, arrive);
}

void Link::credit_underflow(std::uint8_t vc) const {
  throw ModelError(fmt::format("{}: sender committed more than the receiver's buffer on VC {}", name(), vc));
}

void Link::credit_overflow(std::uint8_t vc) const {
  throw ModelError(fmt::format("{}: credits on VC {} exceed the receiver buffer", name(), vc));
}

void Link::return_credits(std::uint8_t vc, std::uint32_t bytes) {
  if (!config_.lossless) return;
  if (credit_tail_ - credit_head_ == returns_.size()) {
    // Grow the ring (rare: only until it fits the most returns ever in flight at once).
    std::vector<CreditReturn> bigger(returns_.empty() ? 64 : returns_.size() * 2);
    for (std::uint64_t k = credit_head_; k != credit_tail_; ++k) bigger[k - credit_head_] = returns_[k & credit_mask_];
    credit_tail_ -= credit_head_;
    credit_head_ = 0;
    returns_.swap(bigger);
    credit_mask_ = returns_.size() - 1;
  }
  const Ps at = fabric_.now() + config_.prop_ps;
  returns_[credit_tail_++ & credit_mask_] = CreditReturn{at, bytes, vc};
  if (sender_waiting_ && !credit_event_pending_) {
    credit_event_pending_ = true;
    fabric_.schedule(at, this, kCreditArrives, 0);
  }
}

void Link::wait_for_credit() {
  sender_waiting_ = true;
  if (!credit_event_pending_ && credit_head_ != credit_tail_) {
    credit_event_pending_ = true;
    fabric_.schedule(returns_[credit_head_ & credit_mask_].at, this, kCreditArrives, 0);
  }
}

void Link::on_event(std::uint32_t kind, std::uint64_t) {
  if (kind != kCreditArrives) return;
  credit_event_pending_ = false;
  absorb_due_credits();
  sender_waiting_ = false;
  // The sender retries; if it still lacks credit it waits again (has_credit re-arms the wake-up).
  if (sender_) sender_->on_credit(sender_port_);
}

}  // namespace netasic
