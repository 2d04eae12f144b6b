// Whether this process is one of several that an MPI launcher (mpirun, mpiexec) or a multi-task Slurm step
// (srun -n N) started together. One fabric across processes is not built yet (docs/parallel.md), so `netasic
// run` and `netasic bench` started that way would each simulate the whole fabric and write the same outputs:
// they stop instead, with exit status 2 and one message, from the first process.
#pragma once

#include <string>

namespace netasic {

struct LaunchRanks {
  long size = 1;         // processes started together (1: a plain start)
  long rank = 0;         // this one's index among them
  std::string variable;  // the environment variable that says so, e.g. OMPI_COMM_WORLD_SIZE
};

// From the environment: OpenMPI's OMPI_COMM_WORLD_SIZE/RANK, the PMI_SIZE/RANK of MPICH and of srun's PMI
// plugins, or Slurm's SLURM_STEP_NUM_TASKS/SLURM_PROCID inside an srun step. A value that is not a positive
// integer is ignored.
LaunchRanks launch_ranks();

// The message for `command` (run, bench) started as `l.size` processes.
std::string launch_ranks_message(const LaunchRanks& l, const std::string& command);

// True when this process is one of several started together: the first of them prints the message on
// stderr; the caller stops with exit status 2.
bool several_processes_refused(const std::string& command);

}  // namespace netasic
