#include "verification/common/run_helpers.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace netasic::test {

std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string two_hosts_topology(const std::string& name, double delay_us, double error0, double error1) {
  return write_temp(name, "3 1 2\n2\n0 2 100Gbps " + std::to_string(delay_us) + "us " + std::to_string(error0) +
                              "\n1 2 100Gbps " + std::to_string(delay_us) + "us " + std::to_string(error1) + "\n");
}

std::string write_scenario(const std::string& name, const Scenario& s) {
  const nlohmann::json all = s.to_json();
  nlohmann::json set = nlohmann::json::object();
  for (const KeyDef& k : scenario_keys()) {
    if (s.is_default(k.name)) continue;
    std::string pointer = "/" + k.name;
    for (char& c : pointer) c = c == '.' ? '/' : c;
    set[nlohmann::json::json_pointer(pointer)] = all.at(nlohmann::json::json_pointer(pointer));
  }
  return write_temp(name, set.dump(2) + "\n");  // JSON is YAML (flow style)
}

nlohmann::json run_process(const std::string& name, const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path() / ("netasic-run-" + std::to_string(getpid()) + "-" + name);
  const std::string cmd = std::string(NETASIC_BINARY) + " run " + args + " --quiet --out " + dir.string() + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  const int raw = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << cmd << "\n" << out;
  std::ifstream in(dir / "summary.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

}  // namespace netasic::test
