// `netasic sweep`, local backend: each point a child `netasic run` process (tb/sizing/sweep_internal.h).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>

#include <csignal>
#include <cstring>

#include <deque>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tb/sizing/sweep_internal.h"
#include "tb/output_dir.h"
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

// A point's LOCK file, locked with flock() by the sweep and inherited by the point's run process, so the
// lock holds while either lives: a second sweep (a resume while the first, or a point it started, still
// runs) cannot run the point at once. Returns the locked descriptor, or -1 with `holder` set when busy.
int lock_point(const PointRun& r, std::string& holder) {
  const std::string path = (r.dir / "LOCK").string();
  // Close-on-exec: only the point's own run process inherits its lock (spawn_point clears the flag).
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(fmt::format("sweep: cannot open {}: {}", path, std::strerror(errno)));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    holder = slurp(r.dir / "LOCK");
    while (!holder.empty() && holder.back() == '\n') holder.pop_back();
    close(fd);
    return -1;
  }
  const std::string me = fmt::format("sweep pid {}\n", getpid());
  if (ftruncate(fd, 0) != 0 || pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size()))
    throw std::runtime_error(fmt::format("sweep: cannot write {}: {}", path, std::strerror(errno)));
  return fd;
}

// Stops every running point: SIGTERM to each point's process group (a run writes INTERRUPTED and exits),
// then SIGKILL to what is left after 10 s.
void stop_points(std::map<pid_t, PointRun*>& running) {
  for (const auto& [pid, r] : running) kill(-pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!running.empty()) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0 && running.count(pid)) {
      close(running[pid]->lock_fd);
      running.erase(pid);
    } else if (std::chrono::steady_clock::now() > deadline) {
      for (const auto& [p, r] : running) kill(-p, SIGKILL);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
}

pid_t spawn_point(const std::string& binary, const PointRun& r) {
  const std::string scen = (r.dir / "scenario.yaml").string(), out = r.dir.string();
  const std::string so = (r.dir / "stdout.txt").string(), se = (r.dir / "stderr.txt").string();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // its own process group: stopping the sweep stops the point and anything it started
    fcntl(r.lock_fd, F_SETFD, 0);  // the run process holds the point's lock as long as it lives
    const int o = open(so.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(se.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o >= 0) dup2(o, 1);
    if (e >= 0) dup2(e, 2);
    execl(binary.c_str(), binary.c_str(), "run", scen.c_str(), "--quiet", "--out", out.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid < 0) throw std::runtime_error("sweep: fork failed");
  setpgid(pid, pid);  // also here: whichever of parent and child runs first
  return pid;
}

}  // namespace

void run_local(const std::string& binary, int jobs, int retries, std::vector<PointRun>& runs, Progress& progress,
               std::size_t& done, std::size_t& failed) {
  std::deque<PointRun*> pending;
  for (auto& r : runs)
    if (!r.done) pending.push_back(&r);
  // Every point to run is locked before any starts: a point another sweep is running stops this one.
  for (PointRun* r : pending) {
    std::string holder;
    r->lock_fd = lock_point(*r, holder);
    if (r->lock_fd < 0) {
      for (PointRun* q : pending)
        if (q->lock_fd >= 0) close(q->lock_fd);
      throw InputError(fmt::format("sweep: point {} ({}) is being run by another process ({}, {}/LOCK); wait for "
                                   "it to finish or stop it, then resume",
                                   r->point->index, r->point->hash, holder.empty() ? "unknown" : holder,
                                   r->dir.string()));
    }
  }
  install_interrupt_handlers();
  std::map<pid_t, PointRun*> running;
  while (!pending.empty() || !running.empty()) {
    if (interrupt_signal() != 0) {
      stop_points(running);
      for (PointRun* r : pending) close(r->lock_fd);
      throw SweepInterrupted{interrupt_signal()};
    }
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
      if (r->done || r->attempts > retries) close(r->lock_fd);  // the point is over: unlock it
      progress.update(done, failed, running.size(), true);
    } else if (pid <= 0) {
      progress.update(done, failed, running.size());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

}  // namespace netasic::sizing
