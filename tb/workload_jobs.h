// Several jobs on one fabric (workload.type = jobs; docs/collectives.md, "Several jobs"): a YAML file lists
// jobs, each a collective on its own hosts (a list, or a count placed packed, spread or at random), with its
// start time, iterations and compute gap. Jobs do not share hosts.
#pragma once

namespace netasic {

enum class JobPlacement { packed, spread, random };

class Scenario;
struct Topology;
struct Workload;

void build_jobs(const Scenario& s, const Topology& t, Workload& w);

}  // namespace netasic
