// Long-lived connection patterns of the telemetry-routing evaluation (Mizrahi et al., Section IV-A):
// workload.pattern = unf | adv1 | adv2 with workload.pairs connections, each one message of
// workload.size_bytes starting at time 0.
#pragma once

#include "tb/scenario.h"
#include "tb/topology.h"
#include "tb/workload.h"
#include "tlm/common/rng.h"

namespace netasic {

enum class WorkloadPattern { none, unf, adv1, adv2 };

// Fills `w` when workload.pattern is not none (then workload.type is not used) and returns true.
bool build_pattern_workload(const Scenario& s, const Topology& t, Rng& rng, Workload& w);

// The group of each host: its switch's dragonfly group, or (no groups) the host itself.
std::vector<std::uint32_t> host_groups(const Topology& t);

}  // namespace netasic
