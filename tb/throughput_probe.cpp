#include "tb/throughput_probe.h"

#include <algorithm>

namespace netasic {

ThroughputProbe::ThroughputProbe(Fabric& fabric, const FlowTable& flows, Ps period, double warmup)
    : fabric_(fabric), flows_(flows), period_(period), warmup_(warmup) {}

void ThroughputProbe::on_event(std::uint32_t, std::uint64_t) {
  if (flows_.completed() > 0) return;  // the window is over: no more samples
  std::uint64_t delivered = 0;
  for (const Flow& f : flows_.flows()) delivered += f.delivered_bytes;
  // Nothing delivered for kIdleSamples periods (a deadlock, a stalled fabric): the window ends, so the
  // probe's own events do not keep a run alive that the model would otherwise end.
  idle_ = !samples_.empty() && delivered == samples_.back().delivered ? idle_ + 1 : 0;
  if (idle_ >= kIdleSamples) return;
  samples_.push_back(Sample{fabric_.now(), delivered});
  fabric_.schedule(fabric_.now() + period_, this, 0);
}

nlohmann::json ThroughputProbe::report() const {
  nlohmann::json j;
  double gbps = 0;
  Ps from = 0, to = 0;
  if (!samples_.empty()) {
    const Sample& last = samples_.back();
    const Ps begin = static_cast<Ps>(warmup_ * static_cast<double>(last.t));
    auto first = std::find_if(samples_.begin(), samples_.end(), [&](const Sample& s) { return s.t >= begin; });
    if (first != samples_.end() && first->t < last.t) {
      gbps = static_cast<double>(last.delivered - first->delivered) * 8000.0 / static_cast<double>(last.t - first->t);
      from = first->t;
      to = last.t;
    }
  }
  j["aggregate_gbps"] = gbps;
  j["window_start_ns"] = ps_to_ns(from);
  j["window_end_ns"] = ps_to_ns(to);
  j["sample_ns"] = ps_to_ns(period_);
  std::uint64_t max_switches = 0, total = 0;
  std::vector<std::uint64_t> per_flow;
  for (const Flow& f : flows_.flows()) {
    per_flow.push_back(f.path_changes);
    total += f.path_changes;
    max_switches = std::max(max_switches, f.path_changes);
  }
  j["path_switches_total"] = total;
  j["path_switches_max"] = max_switches;
  j["path_switches_per_flow"] = per_flow;
  return j;
}

}  // namespace netasic
