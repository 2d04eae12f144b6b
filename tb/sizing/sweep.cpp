// `netasic sweep`: options, the points' directories, the run and the report (tb/sizing/sweep.h). The sweep
// file is read in sweep_spec.cpp, points run in sweep_local.cpp or sweep_slurm.cpp, results are gathered in
// sweep_results.cpp.
#include "tb/sizing/sweep.h"

#include <csignal>
#include <filesystem>
#include <thread>

#include "tb/sizing/sweep_internal.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {

namespace {

enum class Backend { local, slurm };

constexpr int kMaxJobs = 4096, kMaxRetries = 100;

// The options are checked before anything else is read.
Backend parse_options(const SweepOptions& opts) {
  if (opts.backend != "local" && opts.backend != "slurm")
    throw InputError(fmt::format("sweep: --backend '{}': expected local or slurm", opts.backend));
  // Negative counts would be taken as "no workers" (the sweep never ends) or "no attempts" silently.
  if (opts.jobs < 0 || opts.jobs > kMaxJobs)
    throw InputError(fmt::format("sweep: -j/--jobs {}: accepted 0 (one worker per core) .. {}", opts.jobs, kMaxJobs));
  if (opts.retries < 0 || opts.retries > kMaxRetries)
    throw InputError(fmt::format("sweep: --retries {}: accepted 0 .. {} (extra attempts for a failed point)",
                                 opts.retries, kMaxRetries));
  if (opts.slurm.array_throttle < 0)
    throw InputError(fmt::format("sweep: --throttle {}: accepted 0 (no limit) or more", opts.slurm.array_throttle));
  if (!opts.report.empty() && opts.report != "knee")
    throw InputError(fmt::format("sweep: --report '{}': expected knee", opts.report));
  return opts.backend == "slurm" ? Backend::slurm : Backend::local;
}

// The knee report's size key must be swept and numeric.
void check_size_key(const SweepOptions& opts, const SweepSpec& spec, const std::string& size_key) {
  if (size_key.empty())
    throw InputError(fmt::format("{}: --report knee needs a swept table-size key (report: size_key: KEY, or --size-key)", opts.file));
  if (std::find(spec.swept_keys.begin(), spec.swept_keys.end(), size_key) == spec.swept_keys.end())
    throw InputError(fmt::format("{}: report size key '{}' is not a swept key", opts.file, size_key));
  const KeyDef* def = find_key(size_key);
  if (!def || (def->type != KeyType::integer && def->type != KeyType::number))
    throw InputError(fmt::format("{}: report size key '{}' is not numeric", opts.file, size_key));
}

// The sweep file's slurm section with the command line's settings over it.
SlurmSettings merged_slurm(const SweepOptions& opts, const SweepSpec& spec) {
  SlurmSettings sl = spec.slurm;
  if (!opts.slurm.partition.empty()) sl.partition = opts.slurm.partition;
  if (!opts.slurm.account.empty()) sl.account = opts.slurm.account;
  if (!opts.slurm.time_limit.empty()) sl.time_limit = opts.slurm.time_limit;
  if (opts.slurm.array_throttle > 0) sl.array_throttle = opts.slurm.array_throttle;
  for (const auto& a : opts.slurm.sbatch_args) sl.sbatch_args.push_back(a);
  return sl;
}

// One directory per point, named by its inputs hash: points already done are kept (resume), the others
// get their scenario.yaml.
std::vector<PointRun> prepare_points(const SweepOptions& opts, const SweepSpec& spec, const fs::path& out,
                                     std::size_t& skipped) {
  std::error_code ec;
  fs::create_directories(out / "points", ec);
  if (ec) throw InputError(fmt::format("sweep: cannot create {}: {}", (out / "points").string(), ec.message()));
  std::vector<PointRun> runs;
  for (const auto& p : spec.points) {
    PointRun r{&p, out / "points" / p.hash};
    if (point_completed(r.dir, p)) {
      if (!fs::exists(r.dir / "done.json")) mark_done(r);
      r.done = true;
      ++skipped;
    } else {
      fs::create_directories(r.dir);
      write_file(r.dir / "scenario.yaml", "# netasic sweep point " + std::to_string(p.index) + " of " + opts.file + "\n" +
                                              p.scenario_yaml);
    }
    runs.push_back(r);
  }
  return runs;
}

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : p.string();
}

std::size_t report_failures(const std::vector<PointRun>& runs, const std::vector<std::map<std::string, std::string>>& rows) {
  std::size_t nfailed = 0;
  for (const auto& row : rows)
    if (row.at("status") != "done") {
      ++nfailed;
      const auto& r = runs[std::stoul(row.at("point"))];
      std::cerr << fmt::format("sweep: point {} ({}) FAILED after {} attempts (exit {}); see {}/stderr.txt\n",
                               row.at("point"), row.at("hash"), r.attempts, r.exit_code, r.dir.string());
    }
  return nfailed;
}

}  // namespace

int run_sweep(const SweepOptions& opts) {
  const Backend backend = parse_options(opts);
  const bool knee = opts.report == "knee";
  SweepSpec spec = load_sweep(opts.file);
  const std::string size_key = opts.size_key.empty() ? spec.size_key : opts.size_key;
  if (knee) check_size_key(opts, spec, size_key);
  const SlurmSettings sl = merged_slurm(opts, spec);
  const fs::path out = opts.out.empty() ? fs::path("out/sweeps") / fs::path(opts.file).stem() : fs::path(opts.out);
  if (opts.dry_run) {
    for (const auto& p : spec.points) {
      std::string vals;
      for (const auto& [k, v] : p.values) vals += " " + k + "=" + v;
      std::cout << fmt::format("{} {}{}\n", p.index, p.hash, vals);
    }
    return 0;
  }
  std::size_t skipped = 0;
  std::vector<PointRun> runs = prepare_points(opts, spec, out, skipped);
  const int jobs = opts.jobs > 0 ? opts.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string binary = opts.binary.empty() ? self_exe() : opts.binary;
  std::cerr << fmt::format("sweep: {} points ({} already done), backend {}, output {}\n", runs.size(), skipped,
                           opts.backend, out.string());
  std::size_t done = skipped, failed = 0;
  Progress progress(runs.size(), skipped, jobs);
  progress.update(done, failed, 0, true);
  if (backend == Backend::local) {
    try {
      run_local(binary, jobs, opts.retries, runs, progress, done, failed);
    } catch (const SweepInterrupted& i) {
      progress.finish();
      std::cerr << fmt::format("sweep: interrupted by {}; running points stopped (their directories say "
                               "INTERRUPTED), {} of {} points done; run the same command to resume\n",
                               i.signal == SIGINT ? "SIGINT" : "SIGTERM", done, runs.size());
      return 128 + i.signal;
    }
  } else {
    run_slurm(binary, out, sl, opts.retries, runs, progress, done, failed);
  }
  progress.finish();

  const auto rows = write_results(out, spec, runs, opts.file);
  const std::size_t nfailed = report_failures(runs, rows);
  std::cout << fmt::format("sweep: {} points: {} run now, {} skipped (already done), {} failed\n", runs.size(),
                           runs.size() - skipped, skipped, nfailed);
  std::cout << fmt::format("sweep: results {}, {}\n", (out / "results.csv").string(), (out / "results.sqlite").string());
  if (knee) write_knee_report(out, spec, size_key, rows);
  return nfailed == 0 ? 0 : 4;
}

}  // namespace netasic::sizing
