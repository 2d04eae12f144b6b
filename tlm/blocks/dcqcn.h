// DCQCN-like reaction point: the rate state machine of one flow at the source NIC (Zhu et al., "Congestion
// Control for Large-Scale RDMA Deployments", SIGCOMM 2015, Section 3 and its parameter list; the increase
// stages come from QCN, IEEE 802.1Qau).
//
// The flow sends at its current rate Rc; Rt is the target rate it recovers toward. Events:
//   - a CNP:            Rt <- Rc;  Rc <- max(Rmin, Rc * (1 - alpha / 2));  alpha <- (1 - g) * alpha + g;
//                       the timer count T, the byte count BC and the bytes since the last count restart,
//                       and so do the alpha timer and the rate-increase timer;
//   - the alpha timer (every K without a CNP):  alpha <- (1 - g) * alpha;
//   - a rate-increase event, when the rate-increase timer expires (T += 1, every `rate_timer`) or the flow
//     has sent another `byte_counter` bytes (BC += 1):
//         fast recovery  if max(T, BC) <= F:        Rc <- (Rt + Rc) / 2
//         hyper increase if min(T, BC) >  F:        Rt <- Rt + (min(T, BC) - F) * R_HAI;  Rc <- (Rt + Rc) / 2
//         additive increase otherwise:              Rt <- Rt + R_AI;                      Rc <- (Rt + Rc) / 2
//     with Rt capped at the line rate.
// Timers run lazily: advance(now) applies every expiry up to `now` in time order, so a caller only has to
// call it before reading the rate or reporting an event. A flow starts at the line rate with alpha = 1.
#pragma once

#include <cstdint>

#include "tlm/common/units.h"

namespace netasic {

struct DcqcnConfig {
  double line_rate_gbps = 100;                  // the NIC's link: the first and the highest rate
  double min_rate_gbps = 0.01;                  // the rate never goes below it
  double g = 1.0 / 256;                         // alpha's gain
  Ps alpha_timer_ps = 55 * kPsPerUs;            // K
  Ps rate_timer_ps = 55 * kPsPerUs;             // T's period
  std::uint64_t byte_counter_bytes = 10u << 20; // B: bytes per byte-counter event
  std::uint32_t fast_recovery_stages = 5;       // F
  double rai_gbps = 0.04;                       // R_AI: additive increase step
  double rhai_gbps = 0.4;                       // R_HAI: hyper increase step
  double initial_alpha = 1.0;
};

class Dcqcn {
 public:
  explicit Dcqcn(const DcqcnConfig& config, Ps now = 0);

  void advance(Ps now);                      // every timer expiry up to now
  void on_cnp(Ps now);                       // advances first
  void on_sent(std::uint64_t bytes, Ps now);  // advances first; the byte counter

  double rate_gbps() const { return rc_; }
  double target_gbps() const { return rt_; }
  double alpha() const { return alpha_; }
  std::uint32_t timer_count() const { return t_; }
  std::uint32_t byte_count() const { return bc_; }
  std::uint64_t cuts() const { return cuts_; }
  std::uint64_t increases() const { return increases_; }
  double min_rate_seen_gbps() const { return min_rc_; }
  const DcqcnConfig& config() const { return config_; }

 private:
  void increase();

  DcqcnConfig config_;
  double rc_, rt_, alpha_, min_rc_;
  std::uint32_t t_ = 0, bc_ = 0;
  std::uint64_t bytes_ = 0;  // sent since the last byte-counter event
  Ps next_alpha_, next_rate_;
  std::uint64_t cuts_ = 0, increases_ = 0;
};

}  // namespace netasic
