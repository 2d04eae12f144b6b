// `netasic sweep`, Slurm backend: one job array per retry round, watched until every task has left an exit
// status or the queue (tb/sizing/sweep_internal.h).
#include <sys/wait.h>

#include <set>
#include <thread>

#include "tb/sizing/sweep_internal.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string run_capture(const std::string& cmd, int* status) {
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) {
    *status = -1;
    return "";
  }
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int raw = pclose(pipe);
  *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

// The array job: task i runs the point in line i+1 of points.txt and leaves its exit status in the point's
// directory (written then renamed, so a watcher never reads half a file).
void write_job_script(const fs::path& dir, std::size_t tasks, const std::string& binary, const SlurmSettings& sl) {
  std::string script = "#!/bin/sh\n# netasic sweep: one array task per point (see docs/sizing.md)\n";
  script += fmt::format("#SBATCH --job-name=netasic-sweep\n#SBATCH --array=0-{}{}\n", tasks - 1,
                        sl.array_throttle > 0 ? fmt::format("%{}", sl.array_throttle) : "");
  script += fmt::format("#SBATCH --output={}/task-%a.log\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n",
                        fs::absolute(dir).string());
  if (!sl.partition.empty()) script += "#SBATCH --partition=" + sl.partition + "\n";
  if (!sl.account.empty()) script += "#SBATCH --account=" + sl.account + "\n";
  if (!sl.time_limit.empty()) script += "#SBATCH --time=" + sl.time_limit + "\n";
  for (const auto& a : sl.sbatch_args) script += "#SBATCH " + a + "\n";
  script += fmt::format("d=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n", shell_quote(fs::absolute(dir / "points.txt").string()));
  script += fmt::format("{} run \"$d/scenario.yaml\" --quiet --out \"$d\" >\"$d/stdout.txt\" 2>\"$d/stderr.txt\"\n",
                        shell_quote(binary));
  script += "rc=$?\necho $rc >\"$d/exit.tmp\" && mv \"$d/exit.tmp\" \"$d/exit\"\nexit $rc\n";
  write_file(dir / "job.sh", script);
}

}  // namespace

void run_slurm(const std::string& binary, const fs::path& out, const SlurmSettings& sl, int retries,
               std::vector<PointRun>& runs, Progress& progress, std::size_t& done, std::size_t& failed) {
  for (int round = 0; round <= retries; ++round) {
    std::vector<PointRun*> batch;
    for (auto& r : runs)
      if (!r.done && r.attempts == round) batch.push_back(&r);
    if (batch.empty()) break;
    const fs::path dir = out / "slurm" / fmt::format("round{}", round);
    fs::create_directories(dir);
    std::string list;
    for (auto* r : batch) {
      list += fs::absolute(r->dir).string() + "\n";
      fs::remove(r->dir / "exit");
      fs::remove(r->dir / "done.json");
      ++r->attempts;
    }
    write_file(dir / "points.txt", list);
    write_job_script(dir, batch.size(), binary, sl);
    int st = 0;
    const std::string sbatch = fmt::format("sbatch --parsable --chdir={} {} 2>&1", shell_quote(fs::current_path().string()),
                                           shell_quote((dir / "job.sh").string()));
    std::string jobid = run_capture(sbatch, &st);
    jobid.erase(std::remove_if(jobid.begin(), jobid.end(), [](char c) { return c == '\n' || c == '\r'; }), jobid.end());
    if (st != 0) throw InputError(fmt::format("sweep: sbatch failed (exit {}): {}", st, jobid));
    if (auto semi = jobid.find(';'); semi != std::string::npos) jobid = jobid.substr(0, semi);
    std::cerr << fmt::format("sweep: submitted job array {} ({} tasks), script {}\n", jobid, batch.size(),
                             (dir / "job.sh").string());
    std::set<PointRun*> open(batch.begin(), batch.end());
    auto last_check = Clock::now() - std::chrono::seconds(10);
    int gone_checks = 0;
    while (!open.empty()) {
      for (auto it = open.begin(); it != open.end();) {
        PointRun* r = *it;
        if (!fs::exists(r->dir / "exit")) {
          ++it;
          continue;
        }
        r->exit_code = std::atoi(slurp(r->dir / "exit").c_str());
        if (r->exit_code == 0 && fs::exists(r->dir / "summary.json")) {
          r->done = true;
          mark_done(*r);
          ++done;
        } else if (round == retries) {
          ++failed;
        }
        it = open.erase(it);
      }
      if (open.empty()) break;
      if (Clock::now() - last_check > std::chrono::seconds(3)) {
        last_check = Clock::now();
        const std::string q = run_capture(fmt::format("squeue -h -j {} -o %i 2>/dev/null", jobid), &st);
        // The job left the queue but tasks wrote no exit file: they died (time limit, node failure).
        if (st == 0 && q.find_first_not_of(" \n") == std::string::npos) {
          if (++gone_checks >= 2) {
            for (PointRun* r : open) {
              std::cerr << fmt::format("\nsweep: point {} ({}) left the queue without an exit status; see {}\n",
                                       r->point->index, r->point->hash, (dir / "task-*.log").string());
              if (round == retries) ++failed;
            }
            open.clear();
          }
        } else {
          gone_checks = 0;
        }
      }
      progress.update(done, failed, open.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    progress.update(done, failed, 0, true);
  }
}

}  // namespace netasic::sizing
