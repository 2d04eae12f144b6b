// DCTCP-like congestion window of one flow at the source NIC (Alizadeh et al., "Data Center TCP",
// SIGCOMM 2010; the window rules of Linux's tcp_dctcp).
//
// The receiver counts the data bytes it got and how many of them arrived with CE, and echoes both
// counts on every acknowledgement (ECE is set when the CE count moved). The sender feeds the increments
// here, together with its cumulative point `una` (first unacknowledged PSN) and `nxt` (one past the
// highest PSN sent):
//   - alpha, once per window of data (when `una` passes the `nxt` recorded at the window's start):
//         alpha <- (1 - g) * alpha + g * F,   F = CE bytes / bytes in that window;
//   - a cut, at most once per window: on an acknowledgement that brings new CE bytes, when `una` has
//     passed the `nxt` recorded at the previous cut: cwnd <- max(mss, cwnd * (1 - alpha / 2)), and
//     ssthresh <- cwnd;
//   - growth on an acknowledgement without new CE bytes: slow start below ssthresh (cwnd += bytes acknowledged), then additive increase
//     of one mss per window (cwnd += mss * acked / cwnd);
//   - a retransmission timeout: ssthresh <- max(mss, cwnd / 2), cwnd <- mss.
// With slow_start, ssthresh starts unbounded (or at max_window): the window grows from the initial window
// by what is acknowledged (doubling per window) until the first cut or timeout, as TCP does. Without,
// ssthresh starts at the initial window: the flow starts there, additive at once, and slow start runs only
// after a timeout. cwnd never goes below one mss, nor above max_window (when set).
#pragma once

#include <cstdint>

namespace netasic {

struct DctcpConfig {
  double g = 1.0 / 16;                  // EWMA gain of alpha
  std::uint64_t mss = 4096;             // bytes; the least window
  std::uint64_t initial_window = 65536;  // bytes
  std::uint64_t max_window = 0;         // bytes; 0 = no cap
  double initial_alpha = 1.0;           // as Linux (dctcp_alpha_on_init = 1024/1024): the first mark halves
  bool slow_start = true;               // start in slow start (ssthresh unbounded) rather than at ssthresh
};

class Dctcp {
 public:
  explicit Dctcp(const DctcpConfig& config);

  // An acknowledgement: `acked_bytes` newly acknowledged; `ect_bytes` data bytes the receiver got since
  // the previous echo, `ce_bytes` of them with CE; `una`, `nxt`: the sender's PSNs (see above).
  void on_ack(std::uint64_t acked_bytes, std::uint64_t ect_bytes, std::uint64_t ce_bytes, std::uint32_t una,
              std::uint32_t nxt);
  void on_timeout();
  // The flow moved to another path (telemetry routing): the window starts again from the initial window in
  // slow start, as on a new connection (Mizrahi et al. III: "starts using the new path with slow-start");
  // alpha is kept.
  void restart();

  std::uint64_t window() const { return static_cast<std::uint64_t>(cwnd_); }
  double alpha() const { return alpha_; }
  double max_alpha() const { return max_alpha_; }
  std::uint64_t cuts() const { return cuts_; }
  std::uint64_t windows() const { return windows_; }  // alpha updates
  std::uint64_t min_window() const { return static_cast<std::uint64_t>(min_cwnd_); }
  const DctcpConfig& config() const { return config_; }

 private:
  DctcpConfig config_;
  double cwnd_;
  double ssthresh_;
  double alpha_;
  double max_alpha_;
  double min_cwnd_;
  std::uint64_t win_bytes_ = 0, win_ce_ = 0;
  std::uint32_t win_end_ = 0;  // the window of data ends when una reaches it
  std::uint32_t cut_end_ = 0;  // no new cut before una reaches it
  bool cut_once_ = false;
  bool started_ = false;
  std::uint64_t cuts_ = 0, windows_ = 0;
};

}  // namespace netasic
