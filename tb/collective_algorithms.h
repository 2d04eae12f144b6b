// The sends of one iteration of a collective, per algorithm (docs/collectives.md, "Algorithms"): who sends how
// many bytes to whom at which step, and which earlier sends each one waits for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netasic {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast };
enum class CollectiveAlgorithm { ring, halving_doubling, tree, hierarchical };

const char* to_string(CollectiveOp op);
const char* to_string(CollectiveAlgorithm a);

struct CollectiveSend {
  std::uint32_t step;  // schedule slot, for reporting (collective_steps.csv) and the step rule below
  std::uint32_t src, dst;  // ranks
  std::uint64_t bytes;
  // Explicit dependencies: indices (in the plan) of the earlier sends this one waits for. Without them
  // (`explicit_needs` false) the step rule applies: the send waits for everything delivered to its rank at
  // the rank's latest earlier step with deliveries (or, for a rank that never receives, its own sends of its
  // latest earlier step with sends). An explicit send with no needs waits only for its rank's last deliveries
  // of the previous iteration.
  std::vector<std::uint32_t> needs;
  bool explicit_needs = false;
};

// One iteration's sends in step order. `racks` gives each rank's rack (hierarchical); `chunk_bytes` the
// pipelining unit (tree; 0: one chunk). Throws InputError, naming `what`, for an operation the algorithm does
// not run or ranks it cannot run on.
std::vector<CollectiveSend> collective_plan(CollectiveOp op, CollectiveAlgorithm a, std::uint64_t bytes,
                                            const std::vector<std::uint32_t>& racks, std::uint64_t chunk_bytes,
                                            const std::string& what);

}  // namespace netasic
