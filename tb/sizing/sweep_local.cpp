// `netasic sweep`, local backend: each point a child `netasic run` process (tb/sizing/sweep_internal.h).
#include <fcntl.h>
#include <sys/wait.h>

#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tb/sizing/sweep_internal.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  if (!out) throw InputError(fmt::format("sweep: cannot write {}", p.string()));
}

// Done: the sweep recorded it (done.json with the same inputs hash), or a task run outside the sweep (another
// scheduler, or a Slurm job the sweep stopped watching) left exit 0, a summary and the same scenario.yaml.
bool point_completed(const fs::path& dir, const SweepPoint& p) {
  if (!fs::exists(dir / "summary.json")) return false;
  try {
    if (fs::exists(dir / "done.json")) {
      const auto j = nlohmann::json::parse(slurp(dir / "done.json"));
      return j.value("hash", "") == p.hash && j.value("exit", -1) == 0;
    }
    if (!fs::exists(dir / "exit") || std::atoi(slurp(dir / "exit").c_str()) != 0) return false;
    std::string scen = slurp(dir / "scenario.yaml");
    if (!scen.empty() && scen[0] == '#') scen.erase(0, scen.find('\n') + 1);
    return scen == p.scenario_yaml;
  } catch (const std::exception&) {
    return false;
  }
}

void mark_done(const PointRun& r) {
  write_file(r.dir / "done.json",
             nlohmann::json{{"hash", r.point->hash}, {"exit", 0}, {"attempts", r.attempts}}.dump(2) + "\n");
}

namespace {

pid_t spawn_point(const std::string& binary, const PointRun& r) {
  const std::string scen = (r.dir / "scenario.yaml").string(), out = r.dir.string();
  const std::string so = (r.dir / "stdout.txt").string(), se = (r.dir / "stderr.txt").string();
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(so.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(se.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o >= 0) dup2(o, 1);
    if (e >= 0) dup2(e, 2);
    execl(binary.c_str(), binary.c_str(), "run", scen.c_str(), "--quiet", "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid < 0) throw std::runtime_error("sweep: fork failed");
  return pid;
}

}  // namespace

void run_local(const std::string& binary, int jobs, int retries, std::vector<PointRun>& runs, Progress& progress,
               std::size_t& done, std::size_t& failed) {
  std::deque<PointRun*> pending;
  for (auto& r : runs)
    if (!r.done) pending.push_back(&r);
  std::map<pid_t, PointRun*> running;
  while (!pending.empty() || !running.empty()) {
    while (static_cast<int>(running.size()) < jobs && !pending.empty()) {
      PointRun* r = pending.front();
      pending.pop_front();
      ++r->attempts;
      fs::remove(r->dir / "done.json");
      running[spawn_point(binary, *r)] = r;
    }
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && running.count(pid)) {
      PointRun* r = running[pid];
      running.erase(pid);
      r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      write_file(r->dir / "exit", std::to_string(r->exit_code) + "\n");
      if (r->exit_code == 0 && fs::exists(r->dir / "summary.json")) {
        r->done = true;
        mark_done(*r);
        ++done;
      } else if (r->attempts <= retries) {
        std::cerr << (isatty(fileno(stderr)) ? "\n" : "")
                  << fmt::format("sweep: point {} ({}) failed with exit {}, retrying; see {}/stderr.txt\n",
                                 r->point->index, r->point->hash, r->exit_code, r->dir.string());
        pending.push_back(r);
      } else {
        ++failed;
      }
      progress.update(done, failed, running.size(), true);
    } else if (pid <= 0) {
      progress.update(done, failed, running.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

}  // namespace netasic::sizing
