// Partitioning a fabric across processes (ranks) for conservative parallel simulation: which rank owns each
// switch and host, which links the partition cuts, and the lookahead those links allow (docs/parallel.md).
// `netasic partition` prints it for any scenario; a partition cuts only switch-to-switch links (a host
// always lives with the switch it is attached to).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tb/topology.h"

namespace CLI {
class App;
}

namespace netasic {

// pod: fat-tree pods (edge and aggregation switches with their hosts) or leaf-spine leaves, in contiguous
// blocks, the switches between pods (cores, spines) spread over the ranks in index order; group: dragonfly
// groups in contiguous blocks; contiguous: switches in index order cut into blocks of about equal weight
// (a switch weighs 1 plus its hosts), for any topology; automatic: pod for fat trees and leaf-spines,
// group for dragonflies, contiguous otherwise.
enum class PartitionRule { automatic, pod, group, contiguous };

struct RankLoad {
  std::uint32_t hosts = 0, switches = 0;
  std::uint32_t links = 0;      // links with both ends on this rank
  std::uint32_t cut_links = 0;  // links with one end on this rank
};

struct Partition {
  std::uint32_t ranks = 1;
  PartitionRule rule = PartitionRule::automatic;  // the rule applied (never automatic)
  std::vector<std::uint32_t> rank_of;             // per node id
  std::vector<std::uint32_t> cut;                 // indices into Topology::links, in order
  std::vector<RankLoad> load;                     // per rank
  // Over the cut links: the smallest propagation delay, and that plus the serialization of the smallest frame
  // the scenario can put on the link (the conservative window). 0 when nothing is cut (one rank).
  double min_cut_delay_ns = 0;
  double lookahead_ns = 0;
};

const char* to_string(PartitionRule r);

// Partitions `t` across `ranks` ranks by `rule`. `min_frame_bytes`: the smallest frame on a wire, overhead
// included, for the lookahead. InputError when the rule does not fit the topology (pod on a dragonfly) or
// there are more ranks than units (pods, groups, switches).
Partition partition_fabric(const Topology& t, std::uint32_t ranks, PartitionRule rule, double min_frame_bytes);

// `netasic partition`: builds the scenario's topology, partitions it and prints each rank's load and the
// lookahead; with `json_path`, also every node's rank and the cut links, written whole or not at all.
// InputError on bad input, OutputError when the JSON file cannot be written.
int partition_command(const std::string& scenario_path, const std::vector<std::string>& sets, std::uint32_t ranks,
                      const std::string& by, const std::string& json_path);

// `netasic partition [SCENARIO] --ranks N [--by RULE] [--set K=V]... [--json FILE]`.
class PartitionCommand {
 public:
  explicit PartitionCommand(CLI::App& app);
  bool parsed() const;
  int run() const { return partition_command(scenario_, sets_, ranks_, by_, json_); }

 private:
  CLI::App* command_;
  std::string scenario_, by_ = "auto", json_;
  std::uint32_t ranks_ = 2;
  std::vector<std::string> sets_;
};

}  // namespace netasic
