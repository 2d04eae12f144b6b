#include "tlm/blocks/dctcp.h"

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

Dctcp::Dctcp(const DctcpConfig& config) : config_(config) {
  if (!(config_.g > 0 && config_.g <= 1)) throw InputError("dctcp: g must be in (0, 1]");
  if (config_.mss == 0) throw InputError("dctcp: mss must be > 0");
  if (!(config_.initial_alpha >= 0 && config_.initial_alpha <= 1)) throw InputError("dctcp: alpha must be in [0, 1]");
  double w = static_cast<double>(std::max(config_.initial_window, config_.mss));
  if (config_.max_window) w = std::min(w, static_cast<double>(std::max(config_.max_window, config_.mss)));
  cwnd_ = w;
  ssthresh_ = !config_.slow_start ? w
              : config_.max_window ? static_cast<double>(std::max(config_.max_window, config_.mss))
                                   : 1e300;
  alpha_ = config_.initial_alpha;
  max_alpha_ = alpha_;
  min_cwnd_ = w;
}

void Dctcp::on_ack(std::uint64_t acked_bytes, std::uint64_t ect_bytes, std::uint64_t ce_bytes, std::uint32_t una,
                   std::uint32_t nxt) {
  const auto mss = static_cast<double>(config_.mss);
  win_bytes_ += ect_bytes;
  win_ce_ += std::min(ce_bytes, ect_bytes);
  if (!started_) {  // the first window of data ends with what is in flight at the first acknowledgement
    started_ = true;
    win_end_ = nxt;
  }
  if (una >= win_end_ && win_bytes_ > 0) {
    // A window of data is acknowledged: fold its marked fraction into alpha.
    const double f = static_cast<double>(win_ce_) / static_cast<double>(win_bytes_);
    alpha_ = (1 - config_.g) * alpha_ + config_.g * f;
    max_alpha_ = std::max(max_alpha_, alpha_);
    ++windows_;
    win_bytes_ = 0;
    win_ce_ = 0;
    win_end_ = nxt;
  }
  if (ce_bytes > 0) {
    // Congestion: cut, unless this window of data has been cut already. A marked ACK never grows it.
    if (!cut_once_ || una >= cut_end_) {
      cwnd_ = std::max(mss, cwnd_ * (1 - alpha_ / 2));
      ssthresh_ = cwnd_;
      cut_end_ = nxt;
      cut_once_ = true;
      ++cuts_;
    }
  } else if (acked_bytes > 0) {
    const auto acked = static_cast<double>(acked_bytes);
    if (cwnd_ < ssthresh_) cwnd_ = std::min(ssthresh_, cwnd_ + acked);
    else cwnd_ += mss * acked / cwnd_;
  }
  if (config_.max_window) cwnd_ = std::min(cwnd_, static_cast<double>(std::max(config_.max_window, config_.mss)));
  min_cwnd_ = std::min(min_cwnd_, cwnd_);
}

void Dctcp::restart() {
  double w = static_cast<double>(std::max(config_.initial_window, config_.mss));
  if (config_.max_window) w = std::min(w, static_cast<double>(std::max(config_.max_window, config_.mss)));
  cwnd_ = w;
  ssthresh_ = !config_.slow_start ? w
              : config_.max_window ? static_cast<double>(std::max(config_.max_window, config_.mss))
                                   : 1e300;
  min_cwnd_ = std::min(min_cwnd_, cwnd_);
}

void Dctcp::on_timeout() {
  const auto mss = static_cast<double>(config_.mss);
  ssthresh_ = std::max(mss, cwnd_ / 2);
  cwnd_ = mss;
  min_cwnd_ = std::min(min_cwnd_, cwnd_);
}

}  // namespace netasic
