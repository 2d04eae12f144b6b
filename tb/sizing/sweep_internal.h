// Internals of `netasic sweep` shared by its parts: the sweep file (sweep_spec.cpp), the local runner
// (sweep_local.cpp), the Slurm backend (sweep_slurm.cpp), results and the knee report (sweep_results.cpp).
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tb/scenario.h"
#include "tb/sizing/sweep.h"

namespace netasic::sizing {

using Clock = std::chrono::steady_clock;

std::string slurp(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::string& text);  // InputError if it cannot

// Sets one swept value (a list key takes it as a one-item list).
void apply(Scenario& s, const std::string& key, const std::string& value, const std::string& origin);
// The point's scenario text: every key not at its default, in key order (its hash identifies the point).
std::string scenario_text(const Scenario& s);

// The sweep was stopped by SIGINT or SIGTERM (its running points stopped with it).
struct SweepInterrupted {
  int signal;
};

struct PointRun {
  const SweepPoint* point;
  std::filesystem::path dir;
  int attempts = 0;
  int exit_code = -1;
  bool done = false;
  int lock_fd = -1;  // the point's LOCK file, flock()ed while its run process lives (local backend)
};

// Done: the sweep recorded it (done.json with the same inputs hash), or a task run outside the sweep (another
// scheduler, or a Slurm job the sweep stopped watching) left exit 0, a summary and the same scenario.yaml.
bool point_completed(const std::filesystem::path& dir, const SweepPoint& p);
void mark_done(const PointRun& r);

class Progress {
 public:
  Progress(std::size_t total, std::size_t skipped, int parallel)
      : total_(total), skipped_(skipped), parallel_(std::max(1, parallel)), tty_(isatty(fileno(stderr)) != 0),
        start_(Clock::now()) {}
  void update(std::size_t done, std::size_t failed, std::size_t running, bool force = false) {
    const auto now = Clock::now();
    // A terminal gets the line rewritten every second; a log gets a line per finished point, or every 30 s.
    const bool finished_more = done + failed != last_finished_;
    if (!force && !finished_more) {
      if (tty_ && now - last_ < std::chrono::seconds(1) && running == last_running_) return;
      if (!tty_ && now - last_ < std::chrono::seconds(30)) return;
    }
    last_running_ = running;
    last_ = now;
    last_finished_ = done + failed;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const std::size_t finished_here = done + failed - skipped_;
    const std::size_t left = total_ - done - failed;
    std::string eta = "?";
    if (left == 0) {
      eta = "0 s";
    } else if (finished_here > 0) {
      eta = fmt::format("{:.0f} s", elapsed / finished_here * left);
    }
    const std::string line = fmt::format("sweep: {}/{} done, {} failed, {} running | elapsed {:.0f} s, ETA {}", done,
                                         total_, failed, running, elapsed, eta);
    if (tty_) {
      std::cerr << "\r" << line << "\033[K" << std::flush;
    } else {
      std::cerr << line << "\n";
    }
  }
  void finish() {
    if (tty_) std::cerr << "\n";
  }

 private:
  std::size_t total_, skipped_;
  int parallel_;
  bool tty_;
  Clock::time_point start_, last_{};
  std::size_t last_finished_ = static_cast<std::size_t>(-1), last_running_ = 0;
};


// Runs every pending point as a child process, `jobs` at a time, each failed point again up to `retries` times.
void run_local(const std::string& binary, int jobs, int retries, std::vector<PointRun>& runs, Progress& progress,
               std::size_t& done, std::size_t& failed);
// Runs every pending point as a task of one Slurm job array per retry round.
void run_slurm(const std::string& binary, const std::filesystem::path& out, const SlurmSettings& sl, int retries,
               std::vector<PointRun>& runs, Progress& progress, std::size_t& done, std::size_t& failed);

// results.csv and results.sqlite: one row per point, its swept values and the figures of its summary.
std::vector<std::map<std::string, std::string>> write_results(const std::filesystem::path& out,
                                                              const SweepSpec& spec,
                                                              const std::vector<PointRun>& runs,
                                                              const std::string& sweep_file);
// Prints the knee of each group and writes knee.csv.
void write_knee_report(const std::filesystem::path& out, const SweepSpec& spec, const std::string& size_key,
                       const std::vector<std::map<std::string, std::string>>& rows);

}  // namespace netasic::sizing
