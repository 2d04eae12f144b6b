// Chakra execution traces (MLCommons) as workloads (workload.type = chakra; docs/collectives.md, "Chakra
// execution traces"): a directory of per-rank trace files, rank r on host r. Communication nodes become
// flows (point-to-point sends, collectives by workload.collective.algorithm), compute nodes delays, and
// every node waits for its data and control dependencies. Built when protobuf is found (NETASIC_CHAKRA).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tlm/common/units.h"
#include "tlm/model/flow.h"

namespace netasic {

class Scenario;
struct Topology;
struct Workload;

// What a replay made of a trace, for summary.json `chakra`.
struct ChakraReplay {
  std::string dir;
  std::uint32_t ranks = 0;
  std::uint64_t nodes = 0;
  std::map<std::string, std::uint64_t> replayed;     // node kind -> count
  std::map<std::string, std::uint64_t> unsupported;  // node kind or collective type -> count (no-ops)
  std::uint64_t collectives = 0;
  // Per rank: when its last node is done, as deliveries of flows plus delays and a floor.
  std::vector<std::vector<std::pair<std::uint32_t, Ps>>> rank_done;
  std::vector<Ps> rank_floor;
};

bool chakra_supported();  // built with protobuf
void build_chakra(const Scenario& s, const Topology& t, Workload& w);
nlohmann::json chakra_summary(const ChakraReplay& r, const FlowTable& flows);

}  // namespace netasic
