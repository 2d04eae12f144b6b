// `netasic run`: the scenario, the output directory's safety (tb/output_dir.h), the run, its outputs and
// exit status (docs/outputs.md, "Exit statuses").
#pragma once

#include <string>
#include <vector>

namespace netasic {

// `seed`: the --seed text, or nullptr when not given. Returns the exit status; InputError propagates.
int run_command(const std::string& scenario_path, const std::vector<std::string>& sets, const std::string* seed,
                const std::string& out_dir, bool progress);

}  // namespace netasic
