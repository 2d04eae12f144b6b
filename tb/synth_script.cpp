#include "tb/synth_script.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <sys/wait.h>
#include <unistd.h>

#include "tb/data_dir.h"
#include "tlm/common/error.h"

namespace netasic {

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    const auto colon = dirs.find(':', pos);
    std::string dir = dirs.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  return {};
}

std::string synth_script_path() {
  const std::filesystem::path data = data_dir();
  const std::string script = (data / "synth-scripts" / "synth.sh").string();
  if (data.empty() || access(script.c_str(), R_OK) != 0)
    throw InputError(fmt::format("synth-scripts/synth.sh not found in the data directory '{}' (<binary's directory>/"
                                 "share/netasic, or <prefix>/share/netasic when installed)",
                                 data.string()));
  return script;
}

int run_synth_script(const SynthRequest& request) {
  const std::string script = synth_script_path();
  std::vector<std::string> args = {"/bin/sh", script, request.block};
  for (const auto& p : request.params) {
    if (p.find('=') == std::string::npos) throw InputError(fmt::format("--param '{}': expected K=V", p));
    args.push_back(p);
  }
  // synth.py would only fail with a Python traceback when it starts Yosys.
  if (request.require_yosys && find_on_path("yosys").empty())
    throw InputError("yosys not found on PATH (scripts/install-deps.sh installs it; docs/synthesis.md)");
  args.insert(args.end(), request.options.begin(), request.options.end());
  if (!request.out.empty()) {
    args.push_back("--out");
    args.push_back(request.out);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid == 0) {
    if (request.summary_to_stderr) dup2(STDERR_FILENO, STDOUT_FILENO);
    execv("/bin/sh", argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace netasic
