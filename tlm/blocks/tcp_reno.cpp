#include "tlm/blocks/tcp_reno.h"

#include <algorithm>

namespace netasic {

namespace {
std::uint64_t initial_window(const TcpConfig& c) {
  if (c.initial_window) return std::max(c.initial_window, c.mss);
  return std::min<std::uint64_t>(4 * c.mss, std::max<std::uint64_t>(2 * c.mss, 4380));  // RFC 3390
}
}  // namespace

TcpReno::TcpReno(const TcpConfig& config) : config_(config), cwnd_(0), min_cwnd_(0) {
  set_cwnd(initial_window(config_));
  min_cwnd_ = cwnd_;
}

void TcpReno::set_cwnd(std::uint64_t bytes) {
  cwnd_ = std::max(bytes, config_.mss);
  if (config_.max_window) cwnd_ = std::min(cwnd_, std::max(config_.max_window, config_.mss));
  min_cwnd_ = std::min(min_cwnd_, cwnd_);
}

void TcpReno::clamp(std::uint64_t bytes) {
  if (bytes < cwnd_) set_cwnd(bytes);
}

std::uint64_t TcpReno::half_flight(std::uint32_t nxt) const {
  const std::uint64_t flight = std::uint64_t{nxt > una_ ? nxt - una_ : 0} * config_.mss;
  return std::max(flight / 2, 2 * config_.mss);
}

void TcpReno::grow(std::uint64_t acked) {
  if (cwnd_ < ssthresh_) {
    set_cwnd(cwnd_ + std::min(acked, 2 * config_.mss));  // RFC 3465, L = 2
    return;
  }
  ca_acked_ += acked;
  std::uint64_t cwnd = cwnd_;
  while (ca_acked_ >= cwnd) {
    ca_acked_ -= cwnd;
    cwnd += config_.mss;
  }
  set_cwnd(cwnd);
}

TcpReno::Resend TcpReno::on_ack(std::uint32_t ack, std::uint32_t nxt) {
  if (ack > una_) {
    const std::uint64_t acked = std::uint64_t{ack - una_} * config_.mss;
    una_ = ack;
    backoff_ = 0;  // new data acknowledged: the timer runs from the estimate again
    if (in_recovery_) {
      if (ack >= recover_) {
        // Full ACK: recovery ends at the halved window (RFC 6582's second choice, as Linux).
        in_recovery_ = false;
        dupacks_ = 0;
        set_cwnd(ssthresh_);
        ca_acked_ = 0;
        return Resend::none;
      }
      // Partial ACK: the next hole goes at once; cwnd deflates by what was acknowledged, plus one mss.
      set_cwnd((cwnd_ > acked ? cwnd_ - acked : 0) + config_.mss);
      ++partial_acks_;
      return Resend::partial_ack;
    }
    dupacks_ = 0;
    grow(acked);
    return Resend::none;
  }
  if (ack < una_ || nxt <= una_) return Resend::none;  // older than the cumulative point, or nothing out
  if (in_recovery_) {
    set_cwnd(cwnd_ + config_.mss);  // a packet left the network
    return Resend::none;
  }
  if (++dupacks_ != config_.dupthresh || ack < recover_) return Resend::none;
  ssthresh_ = half_flight(nxt);
  recover_ = nxt;
  in_recovery_ = true;
  ca_acked_ = 0;
  set_cwnd(ssthresh_ + std::uint64_t{config_.dupthresh} * config_.mss);
  ++fast_retransmits_;
  return Resend::fast_retransmit;
}

bool TcpReno::on_sack_ack(std::uint32_t ack) {
  if (ack <= una_) return false;
  const std::uint64_t acked = std::uint64_t{ack - una_} * config_.mss;
  una_ = ack;
  backoff_ = 0;
  dupacks_ = 0;
  if (!in_recovery_) {
    grow(acked);
    return false;
  }
  if (ack < recover_) return false;  // still in recovery: the window stays at ssthresh
  in_recovery_ = false;
  set_cwnd(ssthresh_);
  ca_acked_ = 0;
  return true;
}

void TcpReno::enter_sack_recovery(std::uint32_t nxt) {
  ssthresh_ = half_flight(nxt);
  recover_ = nxt;
  in_recovery_ = true;
  ca_acked_ = 0;
  set_cwnd(ssthresh_);
  ++fast_retransmits_;
}

void TcpReno::on_timeout(std::uint32_t nxt, std::uint32_t sent_high) {
  ssthresh_ = half_flight(nxt);
  set_cwnd(config_.mss);
  ca_acked_ = 0;
  in_recovery_ = false;
  dupacks_ = 0;
  recover_ = sent_high;
  if (backoff_ < 30) ++backoff_;
  ++timeouts_;
}

void TcpReno::rtt_sample(Ps rtt) {
  if (!has_sample_) {
    srtt_ = rtt;
    rttvar_ = rtt / 2;
    has_sample_ = true;
    return;
  }
  const Ps diff = srtt_ > rtt ? srtt_ - rtt : rtt - srtt_;
  rttvar_ = (3 * rttvar_ + diff) / 4;
  srtt_ = (7 * srtt_ + rtt) / 8;
}

Ps TcpReno::rto() const {
  Ps base = has_sample_ ? std::max(config_.min_rto, srtt_ + 4 * rttvar_) : config_.min_rto;
  base = std::min(base, config_.max_rto);
  for (std::uint32_t i = 0; i < backoff_ && base < config_.max_rto; ++i) base *= 2;
  return std::min(base, config_.max_rto);
}

}  // namespace netasic
