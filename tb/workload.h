// Traffic generators: permutation, all-to-all, random partners with CDF sizes and Poisson arrivals,
// N-to-1 incast, and HPCC ns-3 flow files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tb/scenario.h"
#include "tb/topology.h"
#include "tlm/common/units.h"

namespace netasic {

struct FlowSpec {
  std::uint32_t src = 0, dst = 0;  // host indices
  std::uint64_t size_bytes = 0;
  Ps start = 0;
  std::uint8_t tclass = 0;
  std::uint16_t dport = 4791;  // RoCEv2
};

struct Workload {
  std::string description;
  std::vector<FlowSpec> flows;  // sorted by start time, then source
};

Workload build_workload(const Scenario& s, const Topology& t);

}  // namespace netasic
