// Helpers for tests that run the model in-process (one Simulation per test process).
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <memory>
#include <string>

#include "tb/scenario.h"
#include "tb/simulation.h"

namespace netasic::test {

inline Scenario scenario(std::initializer_list<std::string> assignments) {
  Scenario s;
  for (const auto& a : assignments) s.set_assignment(a);
  return s;
}

inline std::unique_ptr<Simulation> run(const Scenario& s) {
  auto sim = std::make_unique<Simulation>(s);
  sim->run();
  return sim;
}

// Writes `text` to a file under the test's temporary directory and returns its path.
std::string write_temp(const std::string& name, const std::string& text);

// Two hosts on one switch (node 2), 100 Gb/s links of `delay_us` with error rates `error0` and `error1`
// on host 0's and host 1's link: an HPCC topology file under the test's temporary directory; its path.
std::string two_hosts_topology(const std::string& name, double delay_us, double error0 = 0, double error1 = 0);

// Writes the keys of `s` that are not at their default to a YAML scenario file under the test's temporary
// directory and returns its path: the same scenario for a second run in its own process.
std::string write_scenario(const std::string& name, const Scenario& s);

// Runs `netasic run <args>` in its own process and returns its summary.json; a failed run fails the
// calling test. SystemC allows one simulation per process, so a test comparing two runs starts the second
// (or both) this way.
nlohmann::json run_process(const std::string& name, const std::string& args);

}  // namespace netasic::test
