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

namespace {
const std::pair<const char*, const char*> kLaunchers[] = {
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"}, {"PMI_SIZE", "PMI_RANK"}, {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID"}};
}  // namespace

LaunchedAs launched_as() {
  for (const auto& [size_var, rank_var] : kLaunchers) {
    const long size = env_integer(size_var), rank = env_integer(rank_var);
    if (size >= 1 && rank >= 0) return LaunchedAs{static_cast<int>(size), static_cast<int>(rank), size_var};
  }
  return LaunchedAs{};
}

bool several_processes_refused(const std::string& command) {
  for (const auto& [size_var, rank_var] : kLaunchers) {
    const long size = env_integer(size_var);
    const long rank = env_integer(rank_var);
    if (size < 1 || rank < 0) continue;  // this launcher did not start us
    if (size == 1) return false;
    if (rank == 0) {
      const std::string why =
          command == "run" ? "this netasic was built without MPI (install libopenmpi-dev and rebuild: NETASIC_MPI), so "
                             "each would simulate the whole fabric and write the same outputs"
                           : "the benchmark runs in one process, so each would run it whole";
      std::cerr << fmt::format(
          "netasic: error: {}: started as {} processes together ({}={}): {}. Start one process (mpirun -n 1, srun "
          "-n 1); for many scenarios use `netasic sweep -j N` or its Slurm job array. docs/parallel.md\n",
          command, size, size_var, size, why);
    }
    return true;
  }
  return false;
}

}  // namespace netasic
