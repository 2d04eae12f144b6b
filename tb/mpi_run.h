// One fabric across several processes: `mpirun -n N netasic run` or `srun -n N netasic run` (docs/parallel.md).
// Built when MPI is found (NETASIC_MPI). Every rank builds the whole scenario and runs, in the causal event order,
// the switches, hosts and links the partition gives it (parallel.partition); the links the partition cuts hand
// their frames and credit returns to the other rank at the end of each window (MPI_Alltoallv), and one
// reduction per window agrees on where the next starts and whether the run stops. Rank 0 gathers every
// rank's records and writes the outputs once: flows.csv, ports.csv and tables.json byte-identical to those of
// one process in the causal order.
#pragma once

#include <string>
#include <vector>

namespace netasic {

// `netasic run` as one of launched_processes() > 1 processes. Returns the exit status: 2 for bad input (printed
// once, by rank 0); a failure on one rank prints that rank's message and stops every rank.
int mpi_run_command(const std::string& scenario_path, const std::vector<std::string>& sets, const std::string* seed,
                    const std::string& out_dir, bool progress);

}  // namespace netasic
