// Helpers for tests that run the model in-process (one Simulation per test process).
#pragma once

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

}  // namespace netasic::test
