#include "tb/run_command.h"

#include <fmt/format.h>

#include <csignal>
#include <iostream>

#include "tb/choices.h"
#include "tb/launch_ranks.h"
#ifdef NETASIC_HAVE_MPI
#include "tb/mpi_run.h"
#endif
#include "tb/output_dir.h"
#include "tb/scenario.h"
#include "tb/simulation.h"
#include "tlm/common/error.h"
#ifdef NETASIC_HAVE_COSIM
#include "tlm/cosim/waves.h"
#endif

namespace netasic {

namespace {

// The list of files the run wrote, for the summary's last line.
std::string written(const Scenario& s, const std::string& dir) {
  std::string files = fmt::format("{}/summary.json, flows.csv, fct.txt, ports.csv, tables.json", dir);
  if (s.number("stats.sample_us") > 0) files += ", timeseries.csv";
  if (s.choice<CosimTrace>("cosim.trace") == CosimTrace::fst) files += ", cosim_*.fst";
  if (s.boolean("trace.enabled")) files += ", trace.json, packets.pcap";
  const std::string& type = s.string("workload.type");
  if (type == "collective" || type == "jobs" || type == "chakra") files += ", collective_steps.csv";
  return files;
}

int finish_run(Simulation& sim, const Scenario& s, const OutputDir& out) {
  sim.write_outputs(out);
  out.finish();
  std::cout << sim.summary_table();
  std::cout << fmt::format("  {:<28} {}\n", "outputs", written(s, out.path()));
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "netasic: error: cannot write the summary to standard output\n";
    return 1;
  }
  if (sim.stalled()) {
    std::cerr << fmt::format("netasic: no byte was delivered for {:.0f} us of simulated time (sim.stall_timeout_us) "
                             "while flows were under way; stopped at {:.3f} us with {} of {} flows incomplete; see "
                             "{}/flows.csv\n",
                             static_cast<double>(sim.stall_timeout()) / 1e6, static_cast<double>(sim.sim_time()) / 1e6,
                             sim.flows().size() - sim.flows().completed(), sim.flows().size(), out.path())
              << sim.incomplete_report(8);
    return 3;
  }
  if (!sim.all_flows_completed() && !sim.fabric().hit_time_limit()) {
    std::cerr << fmt::format("netasic: the run ended with {} of {} flows incomplete and no events left "
                             "(deadlock or lost packets); see {}/flows.csv\n",
                             sim.flows().size() - sim.flows().completed(), sim.flows().size(), out.path())
              << sim.incomplete_report(8);
    return 3;
  }
  return 0;
}

}  // namespace

// cosim.trace*: the co-simulated blocks' waveforms (docs/cosim.md, "Waveforms"), into the output directory.
static void set_cosim_waves(const Scenario& s, const std::string& dir) {
  const bool fst = s.choice<CosimTrace>("cosim.trace") == CosimTrace::fst;
  const double start = s.number("cosim.trace_start_ns"), end = s.number("cosim.trace_end_ns");
  if (fst && end > 0 && end <= start)
    throw InputError(fmt::format("cosim.trace_end_ns ({}) must be after cosim.trace_start_ns ({}), or 0 for no end",
                                 end, start));
#ifdef NETASIC_HAVE_COSIM
  cosim::WaveOptions& w = cosim::wave_options();
  w.fst = fst;
  w.dir = dir;
  w.start = static_cast<Ps>(start * 1e3 + 0.5);
  w.end = end > 0 ? static_cast<Ps>(end * 1e3 + 0.5) : kNever;
  w.now = nullptr;
#else
  (void)dir;
  if (fst) throw InputError("cosim.trace = fst: this netasic was built without RTL co-simulation (configure with NETASIC_RTL=ON)");
#endif
}

int run_command(const std::string& scenario_path, const std::vector<std::string>& sets, const std::string* seed,
                const std::string& out_dir, bool progress) {
#ifdef NETASIC_HAVE_MPI
  // mpirun -n N, srun -n N: one fabric across the N processes.
  if (launched_as().processes > 1) return mpi_run_command(scenario_path, sets, seed, out_dir, progress);
#endif
  if (several_processes_refused("run")) return 2;  // built without MPI: each would run the whole fabric
  Scenario s;
  if (!scenario_path.empty()) s.load_yaml_file(scenario_path);
  for (const auto& a : sets) s.set_assignment(a);
  if (seed != nullptr) s.set("sim.seed", *seed, "--seed");
  // Everything about the output directory is checked before the model is built and run.
  const OutputDir out(out_dir);
  out.check_inputs(scenario_path, s);
  set_cosim_waves(s, out.path());
  Simulation sim(s);
#ifdef NETASIC_HAVE_COSIM
  if (cosim::wave_options().fst) cosim::wave_options().now = [&sim] { return sim.fabric().now(); };
#endif
  install_interrupt_handlers();
  out.begin();
  try {
    RunOptions opts;
    opts.progress = progress;
    sim.run(opts);
    if (sim.interrupted()) {
      const int sig = interrupt_signal();
      const char* name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
      out.interrupted(name, static_cast<double>(sim.sim_time()) / 1e6);
      std::cerr << fmt::format("netasic: interrupted by {} at simulated time {:.3f} us; {}/INTERRUPTED says so, no "
                               "results written\n",
                               name, static_cast<double>(sim.sim_time()) / 1e6, out.path());
      return 128 + sig;
    }
    return finish_run(sim, s, out);
  } catch (const OutputError& e) {
    out.finish();
    std::cerr << "netasic: error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    out.finish();  // the run is over either way; its error is reported by the caller
    throw;
  }
}

}  // namespace netasic
