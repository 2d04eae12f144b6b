#include "tb/launch_ranks.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <utility>

namespace netasic {
namespace {

long env_integer(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n >= 0 ? n : -1;
}

}  // namespace

bool several_processes_refused(const std::string& command) {
  const std::pair<const char*, const char*> sources[] = {
      {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"},
      {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID"}};
  for (const auto& [size_var, rank_var] : sources) {
    const long size = env_integer(size_var);
    const long rank = env_integer(rank_var);
    if (size < 1 || rank < 0) continue;  // this launcher did not start us
    if (size == 1) return false;
    if (rank == 0)
      std::cerr << fmt::format(
          "netasic: error: {}: started as {} processes together ({}={}): one fabric across processes is not built "
          "yet, so each would simulate the whole fabric{}. Start one process per scenario (mpirun -n 1, srun -n 1); "
          "for many scenarios use `netasic sweep -j N` or its Slurm job array. docs/parallel.md has the partitioner "
          "and the plan\n",
          command, size, size_var, size, command == "run" ? " and write the same outputs" : "");
    return true;
  }
  return false;
}

}  // namespace netasic
