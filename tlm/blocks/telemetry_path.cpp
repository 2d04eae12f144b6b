#include "tlm/blocks/telemetry_path.h"

#include <algorithm>
#include <limits>

namespace netasic {


std::uint32_t intermediate_group(std::uint16_t port, std::uint32_t groups, std::uint32_t src_group,
                                 std::uint32_t dst_group) {
  std::uint32_t g = (port & 0x7fffu) % (groups - 2);
  for (std::uint32_t skip : {std::min(src_group, dst_group), std::max(src_group, dst_group)})
    if (g >= skip) ++g;
  return g;
}

PathSelector::PathSelector(const TelemetryConfig& config, std::uint64_t seed, std::uint64_t stream)
    : config_(config), rng_(seed, stream) {
  // One random shortest value; the non-shortest ones consecutive from a random base, so that the switches'
  // residue of the 15 bits gives each a different intermediate group (all of them with candidates = |G| - 1:
  // the paper's candidate set). The source knows only how many candidates, not where each leads.
  const std::uint32_t n = std::max<std::uint32_t>(1, config_.candidates);
  candidates_.push_back(static_cast<std::uint16_t>(rng_.below(0x8000)));
  const auto base = static_cast<std::uint32_t>(rng_.below(0x8000 - (n - 1)));
  for (std::uint32_t i = 0; i + 1 < n; ++i) candidates_.push_back(static_cast<std::uint16_t>(kNonShortestBit | (base + i)));
  current_ = candidates_[0];
  rr_ = 0;
}

bool PathSelector::better(Ps candidate, Ps current) const {
  const double c = static_cast<double>(current), d = static_cast<double>(candidate);
  return d < config_.delta1 * c && c - d > config_.delta2 * static_cast<double>(config_.mtu_time_ps);
}

const std::vector<std::uint16_t>& PathSelector::start(Ps now) {
  // A few random alternatives (shortest or not), never the current path.
  initial_.clear();
  std::vector<std::uint16_t> others(candidates_.begin() + 1, candidates_.end());
  const std::uint32_t k = std::min<std::uint32_t>(config_.initial_probes, static_cast<std::uint32_t>(others.size()));
  for (std::uint32_t i = 0; i < k; ++i) {
    const auto j = i + static_cast<std::uint32_t>(rng_.below(others.size() - i));
    std::swap(others[i], others[j]);
    initial_.push_back(others[i]);
  }
  if (!initial_.empty()) {
    open_round(now);
    for (std::uint16_t p : initial_) add_probe(p);
  }
  return initial_;
}

void PathSelector::open_round(Ps now) {
  open_ = true;
  round_n_ = 0;
  round_replied_ = 0;
  first_back_ = false;
  round_start_ = now;
  deadline_ = now + config_.probe_timeout_ps;
}

void PathSelector::add_probe(std::uint16_t port) {
  if (round_n_ < kMaxRound) round_[round_n_++] = Probe{port, false, 0};
  ++probes_;
}

std::uint16_t PathSelector::next_round_robin() {
  // Round robin over the candidates, skipping the path in use.
  for (std::size_t tries = 0; tries < candidates_.size(); ++tries) {
    rr_ = (rr_ + 1) % static_cast<std::uint32_t>(candidates_.size());
    if (candidates_[rr_] != current_) return candidates_[rr_];
  }
  return current_;
}

bool PathSelector::on_data_sent(std::uint32_t cwnd_packets, Ps now, std::uint16_t& probe) {
  if (candidates_.size() < 2) return false;
  const std::uint32_t every = std::max(cwnd_packets, config_.delta3);
  if (++since_probe_ < every) return false;
  since_probe_ = 0;
  probe = next_round_robin();
  if (!open_) open_round(now);
  add_probe(probe);
  return true;
}

bool PathSelector::on_ack_delay(std::uint16_t port, Ps delay) {
  if (port != current_) return false;  // an ACK of a packet sent before the last switch
  cur_delay_ = delay;
  cur_known_ = true;
  if (!pending_) return false;
  pending_ = false;
  return better(pending_probe_.delay, cur_delay_) && switch_to(pending_probe_);
}

bool PathSelector::switch_to(const Probe& p) {
  current_ = p.port;
  cur_delay_ = p.delay;
  ++switches_;
  return true;
}

bool PathSelector::on_ptr(std::uint16_t port, Ps delay, Ps now) {
  if (!open_) return false;  // late: its round is over
  Probe* hit = nullptr;
  for (std::uint32_t i = 0; i < round_n_; ++i)
    if (round_[i].port == port && !round_[i].replied) hit = &round_[i];
  if (!hit) return false;
  hit->replied = true;
  hit->delay = delay;
  ++replies_;
  ++round_replied_;
  if (!first_back_) {
    // R: the first PTR's time; the round waits 2R more (3R from its start).
    first_back_ = true;
    deadline_ = std::min(deadline_, now + 2 * (now - round_start_));
  }
  if (round_replied_ == round_n_) return close_round();
  return false;
}

bool PathSelector::on_time(Ps now) {
  if (!open_ || now < deadline_) return false;
  if (round_replied_ < round_n_) ++timeouts_;
  return close_round();
}

bool PathSelector::close_round() {
  open_ = false;
  const Probe* best = nullptr;
  for (std::uint32_t i = 0; i < round_n_; ++i) {
    const Probe& p = round_[i];
    if (!p.replied) continue;
    if (p.port == current_) {
      cur_delay_ = p.delay;
      cur_known_ = true;
      continue;
    }
    if (!best || p.delay < best->delay) best = &p;
  }
  pending_ = false;
  if (!best) return false;
  if (!cur_known_) {
    // Nothing has measured the current path yet: its first ACK decides.
    pending_ = true;
    pending_probe_ = *best;
    return false;
  }
  return better(best->delay, cur_delay_) && switch_to(*best);
}

}  // namespace netasic
