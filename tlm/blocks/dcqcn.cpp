#include "tlm/blocks/dcqcn.h"

#include <algorithm>
#include <cmath>

namespace netasic {

Dcqcn::Dcqcn(const DcqcnConfig& config, Ps now)
    : config_(config),
      rc_(config.line_rate_gbps),
      rt_(config.line_rate_gbps),
      alpha_(config.initial_alpha),
      min_rc_(config.line_rate_gbps),
      next_alpha_(now + config.alpha_timer_ps),
      next_rate_(now + config.rate_timer_ps) {}

void Dcqcn::advance(Ps now) {
  // The two timers act on different state (alpha; the rates), so each runs its own expiries in order.
  // Over a long idle gap the rates reach the line rate; the loop stops there.
  if (next_alpha_ <= now) {
    const Ps n = (now - next_alpha_) / config_.alpha_timer_ps + 1;  // expiries up to now
    alpha_ *= std::pow(1.0 - config_.g, static_cast<double>(n));
    next_alpha_ += n * config_.alpha_timer_ps;
  }
  while (next_rate_ <= now) {
    ++t_;
    increase();
    next_rate_ += config_.rate_timer_ps;
    if (rc_ >= config_.line_rate_gbps && rt_ >= config_.line_rate_gbps && next_rate_ <= now) {
      // At the line rate further increases change nothing but the count, which only grows.
      const Ps skipped = (now - next_rate_) / config_.rate_timer_ps + 1;
      t_ += static_cast<std::uint32_t>(std::min<Ps>(skipped, 1u << 30));
      next_rate_ += skipped * config_.rate_timer_ps;
    }
  }
}

void Dcqcn::increase() {
  const std::uint32_t f = config_.fast_recovery_stages;
  const std::uint32_t lo = std::min(t_, bc_), hi = std::max(t_, bc_);
  if (hi <= f) {
    // fast recovery: halfway back to the target
  } else if (lo > f) {
    rt_ += (lo - f) * config_.rhai_gbps;
  } else {
    rt_ += config_.rai_gbps;
  }
  rt_ = std::min(rt_, config_.line_rate_gbps);
  rc_ = std::min((rt_ + rc_) / 2, config_.line_rate_gbps);
  ++increases_;
}

void Dcqcn::on_cnp(Ps now) {
  advance(now);
  rt_ = rc_;
  rc_ = std::max(config_.min_rate_gbps, rc_ * (1.0 - alpha_ / 2));
  alpha_ = (1.0 - config_.g) * alpha_ + config_.g;
  min_rc_ = std::min(min_rc_, rc_);
  t_ = 0;
  bc_ = 0;
  bytes_ = 0;
  next_alpha_ = now + config_.alpha_timer_ps;
  next_rate_ = now + config_.rate_timer_ps;
  ++cuts_;
}

void Dcqcn::on_sent(std::uint64_t bytes, Ps now) {
  advance(now);
  bytes_ += bytes;
  while (bytes_ >= config_.byte_counter_bytes) {
    bytes_ -= config_.byte_counter_bytes;
    ++bc_;
    increase();
  }
}

}  // namespace netasic
