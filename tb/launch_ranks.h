// Whether this process is one of several that an MPI launcher (mpirun, mpiexec) or a multi-task Slurm step
// (srun -n N) started together. `netasic run` then runs one fabric across them when built with MPI
// (tb/mpi_run.h, docs/parallel.md); `netasic bench`, and `netasic run` built without MPI, would each simulate the
// whole fabric: they stop instead, with exit status 2 and one message, from the first process.
#pragma once

#include <string>

namespace netasic {

// True when the environment says this process is one of several started together: OpenMPI's
// OMPI_COMM_WORLD_SIZE/RANK, the PMI_SIZE/RANK of MPICH and of srun's PMI plugins, or Slurm's
// SLURM_STEP_NUM_TASKS/SLURM_PROCID inside an srun step (a value that is not a non-negative integer is
// ignored). The first of them (rank 0) prints why on stderr, naming `command` (run, bench) and the
// variable; the caller stops with exit status 2.
bool several_processes_refused(const std::string& command);

// How many processes a launcher started this one with, this one's rank among them, and the variable that says
// so (those above); 1, 0 and empty when no launcher did.
struct LaunchedAs {
  int processes = 1;
  int rank = 0;
  std::string variable;
};
LaunchedAs launched_as();

}  // namespace netasic
