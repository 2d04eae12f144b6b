// Steady-state throughput of long-lived connections (workload.pattern; Mizrahi et al. IV-A: "measured when
// all connections are active ... ignore temporary conditions at the beginning and the end"). Every
// workload.throughput_sample_us the probe records the payload delivered in order so far, summed over the
// flows, until the first flow finishes. throughput.aggregate_gbps is the delivered payload between the
// first sample at or after warmup x T and T, divided by that time, where T is the last sample at which no
// flow had finished (every flow starts at 0) and warmup is workload.throughput_warmup. Sampling also stops
// after 100 periods in a row with nothing delivered (a deadlocked or stalled fabric).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

#include "tlm/model/fabric.h"
#include "tlm/model/flow.h"

namespace netasic {

class ThroughputProbe : public EventTarget {
 public:
  ThroughputProbe(Fabric& fabric, const FlowTable& flows, Ps period, double warmup);
  void start() { fabric_.schedule(period_, this, 0); }
  void on_event(std::uint32_t kind, std::uint64_t data) override;
  nlohmann::json report() const;

 private:
  struct Sample {
    Ps t;
    std::uint64_t delivered;
  };
  Fabric& fabric_;
  const FlowTable& flows_;
  Ps period_;
  double warmup_;
  std::vector<Sample> samples_;  // while no flow has finished
  static constexpr std::uint32_t kIdleSamples = 100;
  std::uint32_t idle_ = 0;  // consecutive samples with nothing new delivered
};

}  // namespace netasic
