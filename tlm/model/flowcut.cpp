#include "tlm/model/flowcut.h"

#include <algorithm>
#include <cmath>

namespace netasic {

RttMonitor::Update RttMonitor::update(Ps rtt, unsigned hops, std::uint16_t avg, std::uint16_t last,
                                      std::uint16_t diff_avg, bool first) {
  if (hops >= min_.size()) min_.resize(hops + 1, 0);
  if (rtt == 0) rtt = 1;
  if (min_[hops] == 0 || rtt < min_[hops]) min_[hops] = rtt;
  // Normalized RTT (>= 1) in 8.8 fixed point, saturating at 255.99.
  const double norm = static_cast<double>(rtt) / static_cast<double>(min_[hops]);
  const auto fixed = static_cast<std::uint16_t>(std::min(65535.0, std::round(norm * 256.0)));
  Update u{};
  u.last = fixed;
  const double a = params_.alpha;
  if (first) {
    u.avg = fixed;
    u.diff_avg = 0;
  } else {
    u.avg = static_cast<std::uint16_t>(std::lround((1 - a) * avg + a * fixed));
    // The difference between consecutive normalized RTTs: growth only (a shrinking RTT is no alarm).
    const double diff = fixed > last ? static_cast<double>(fixed - last) : 0.0;
    u.diff_avg = static_cast<std::uint16_t>(std::min(65535.0, std::round((1 - a) * diff_avg + a * diff)));
  }
  u.drain = u.avg > params_.rtt_ratio_threshold * 256.0 || u.diff_avg > params_.rtt_diff_threshold * 256.0;
  return u;
}

void FlowcutCounters::add(const FlowcutCounters& o) {
  flowcuts += o.flowcuts;
  path_changes += o.path_changes;
  drains += o.drains;
  drains_completed += o.drains_completed;
  drain_refreshes += o.drain_refreshes;
  drains_abandoned += o.drains_abandoned;
  early_resumes += o.early_resumes;
  max_packets_at_early_resume = std::max(max_packets_at_early_resume, o.max_packets_at_early_resume);
  overflows += o.overflows;
  untracked_packets += o.untracked_packets;
  held_packets += o.held_packets;
  acks_generated += o.acks_generated;
  acks_unmatched += o.acks_unmatched;
  xoff_frames += o.xoff_frames;
  xoff_credit_frames += o.xoff_credit_frames;
  xon_frames += o.xon_frames;
  fgfc_coalesced += o.fgfc_coalesced;
  acks_lost += o.acks_lost;
  control_overflows += o.control_overflows;
}

}  // namespace netasic
