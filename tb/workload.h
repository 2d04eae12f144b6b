// Traffic generators: permutation, all-to-all, random partners with CDF sizes and Poisson arrivals,
// N-to-1 incast, and HPCC ns-3 flow files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tb/scenario.h"
#include "tb/topology.h"
#include "tb/workload_chakra.h"
#include "tb/workload_collective.h"
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
  std::vector<FlowSpec> flows;  // sorted by start time, then source (a collective's: in step order)
  // Flows that wait for others (collectives): (before, after) flow indices; per flow, the time it starts
  // after its last predecessor is delivered (empty when no flow waits).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> deps;
  std::vector<Ps> gap;
  std::vector<Ps> dep_delay;  // per dependency: the waiting flow starts no earlier than the delivery plus this
                              // (execution traces' compute between them); empty: none
  std::vector<Collective> collectives;
  std::vector<ChakraReplay> chakra;  // workload.type = chakra: what the replay made of the trace
};

Workload build_workload(const Scenario& s, const Topology& t);

}  // namespace netasic
