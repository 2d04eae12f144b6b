// Whether this process is one of several that an MPI launcher (mpirun, mpiexec) or a multi-task Slurm step
// (srun -n N) started together. One fabric across processes is not built yet (docs/parallel.md), so `netasic
// run` and `netasic bench` started that way would each simulate the whole fabric and write the same outputs:
// they stop instead, with exit status 2 and one message, from the first process.
#pragma once

#include <string>

namespace netasic {

// True when the environment says this process is one of several started together: OpenMPI's
// OMPI_COMM_WORLD_SIZE/RANK, the PMI_SIZE/RANK of MPICH and of srun's PMI plugins, or Slurm's
// SLURM_STEP_NUM_TASKS/SLURM_PROCID inside an srun step (a value that is not a non-negative integer is
// ignored). The first of them (rank 0) prints why on stderr, naming `command` (run, bench) and the
// variable; the caller stops with exit status 2.
bool several_processes_refused(const std::string& command);

}  // namespace netasic
