// Collective operations as workloads (workload.type = collective; docs/collectives.md): the operation's
// steps on the participating hosts as flows, each step's flows waiting for the data they depend on
// (FlowTable dependencies), over several iterations with a compute gap between them.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tb/collective_algorithms.h"
#include "tlm/common/units.h"
#include "tlm/model/flow.h"

namespace netasic {

class Scenario;
struct Topology;
struct Workload;

struct Collective {
  std::string name;                  // a job's name (workload.jobs_file); empty for workload.type=collective
  Ps start = 0;                      // when its first step starts
  CollectiveOp op = CollectiveOp::all_reduce;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  std::vector<std::uint32_t> hosts;  // rank r is host hosts[r]
  std::vector<std::uint32_t> racks;  // rank r's rack (the switch its host hangs off); hierarchical groups by it
  std::uint64_t chunk_bytes = 0;     // tree: the pipelining unit; 0: one chunk
  std::uint64_t bytes = 0;           // S: the message size (NCCL's definition per operation)
  std::uint32_t iterations = 1;
  Ps gap = 0;                        // compute time between iterations
  std::uint32_t first_flow = 0;      // its flows are [first_flow, first_flow + steps.size())
  std::vector<std::array<std::uint32_t, 4>> steps;  // per flow: iteration, step, source rank, destination rank
};

// Per host, the switch its first link leads to: hosts under one switch are a rack.
std::vector<std::uint32_t> rack_of(const Topology& t);

// Adds the collective the workload.collective.* keys describe to `w`: flows, dependencies, gaps.
void build_collective(const Scenario& s, const Topology& t, Workload& w);
// Adds collective `c` (op, algorithm, hosts, racks, chunk_bytes, bytes, iterations, gap, start, name set) to `w`; `what` names it in
// messages (a key prefix, or a file and line).
void add_collective(Collective c, const std::string& what, std::uint8_t tclass, Workload& w);

// summary.json `collectives`: per collective its completion time and NCCL's algorithm and bus bandwidth.
nlohmann::json collective_summary(const std::vector<Collective>& collectives, const FlowTable& flows);
// collective_steps.csv: one line per flow of each collective.
void write_collective_steps(std::ostream& out, const std::vector<Collective>& collectives, const FlowTable& flows,
                            const Topology& t);

}  // namespace netasic
