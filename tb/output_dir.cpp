#include "tb/output_dir.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tb/scenario.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic {

namespace {
constexpr const char* kRunning = "RUNNING";
constexpr const char* kInterrupted = "INTERRUPTED";
}  // namespace

const std::vector<std::string>& OutputDir::file_names() {
  static const std::vector<std::string> names = {"summary.json", "flows.csv",   "fct.txt",      "ports.csv",
                                                 "tables.json",  "trace.json",  "packets.pcap", "timeseries.csv",
                                                 "collective_steps.csv", kRunning, kInterrupted};
  return names;
}

OutputDir::OutputDir(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    throw InputError(fmt::format("--out {}: exists and is not a directory", dir_));
  fs::create_directories(dir_, ec);
  if (ec) throw InputError(fmt::format("--out {}: cannot create the directory: {}", dir_, ec.message()));
  // A probe file: permissions, a read-only file system and a full inode table show up here, before the run.
  const fs::path probe = fs::path(dir_) / fmt::format(".netasic-probe-{}", getpid());
  FILE* f = std::fopen(probe.c_str(), "w");
  if (f == nullptr)
    throw InputError(fmt::format("--out {}: cannot write in the directory: {}", dir_, std::strerror(errno)));
  std::fclose(f);
  fs::remove(probe, ec);
}

void OutputDir::check_inputs(const std::string& scenario_path, const Scenario& s) const {
  std::vector<std::pair<std::string, std::string>> inputs;  // (what, path)
  if (!scenario_path.empty()) inputs.emplace_back("the scenario file", scenario_path);
  for (const KeyDef& k : scenario_keys())
    if (k.type == KeyType::string && !s.string(k.name).empty()) inputs.emplace_back(k.name, s.string(k.name));
  for (const auto& [what, path] : inputs) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) continue;
    for (const std::string& name : file_names()) {
      const fs::path out = fs::path(dir_) / name;
      if (fs::exists(out, ec) && fs::equivalent(path, out, ec))
        throw InputError(fmt::format("{} {} is the run's output {}: the run would overwrite it; move the input or "
                                     "choose another --out",
                                     what, path, out.string()));
      // Also a name the run will create: an input there would be replaced by the temporary file's rename.
      if (!fs::exists(out, ec) && fs::path(path).filename() == name &&
          fs::equivalent(fs::path(path).parent_path().empty() ? "." : fs::path(path).parent_path(), dir_, ec))
        throw InputError(fmt::format("{} {} is the run's output {}", what, path, out.string()));
    }
  }
}

void OutputDir::begin() const {
  std::error_code ec;
  for (const std::string& name : file_names()) fs::remove(fs::path(dir_) / name, ec);
  const std::time_t now = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  write(kRunning, [&](std::ostream& out) {
    out << fmt::format("netasic run in progress: pid {}, started {}\n", getpid(), when);
  });
}

void write_file(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  const fs::path target = path;
  const fs::path tmp = path + ".tmp";
  std::ofstream f(tmp, std::ios::binary);
  if (!f) throw OutputError(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)));
  errno = 0;
  writer(f);
  f.flush();
  const int write_errno = errno;
  f.close();
  if (!f) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw OutputError(fmt::format("cannot write {}: {}", target.string(),
                                  std::strerror(write_errno != 0 ? write_errno : errno != 0 ? errno : EIO)));
  }
  if (std::rename(tmp.c_str(), target.c_str()) != 0) {
    const int e = errno;
    std::error_code ec;
    fs::remove(tmp, ec);
    throw OutputError(fmt::format("cannot rename {} to {}: {}", tmp.string(), target.string(), std::strerror(e)));
  }
}

void OutputDir::write(const std::string& name, const std::function<void(std::ostream&)>& writer) const {
  write_file((fs::path(dir_) / name).string(), writer);
}

void OutputDir::finish() const {
  std::error_code ec;
  fs::remove(fs::path(dir_) / kRunning, ec);
}

void OutputDir::interrupted(const std::string& signal_name, double sim_time_us) const {
  write(kInterrupted, [&](std::ostream& out) {
    out << fmt::format("netasic run interrupted by {} at simulated time {:.3f} us; no results were written\n",
                       signal_name, sim_time_us);
  });
  finish();
}

namespace {
std::atomic<int> g_signal{0};
extern "C" void on_interrupt(int sig) { g_signal.store(sig); }
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal ends the process at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return g_signal.load(); }

}  // namespace netasic
