// One run of synth-scripts/synth.sh: one scripted Yosys flow for one RTL block at one parameter point
// (docs/synthesis.md). Shared by `netasic synth` and `netasic size --silicon --yosys`.
#pragma once

#include <string>
#include <vector>

namespace netasic {

struct SynthRequest {
  std::string block;                 // flowcut_table, flowlet_table, ... (synth.py's BLOCKS)
  std::vector<std::string> params;   // block parameters, K=V
  std::vector<std::string> options;  // further synth.sh options, e.g. --timing
  std::string out;                   // --out DIR; empty: synth.py's default (build-rtl/synth/<tag>)
  bool summary_to_stderr = false;    // the script's summary on stderr, so stdout can carry JSON
  bool require_yosys = false;        // refuse before running when yosys is not on PATH
};

// Runs the script from the data directory (tb/data_dir.h) and returns its exit status. Throws InputError
// when the script (or, with require_yosys, Yosys) cannot be found or a parameter is not K=V: nothing
// would run. `netasic synth` leaves Yosys to the script, so a stand-in script runs without it.
int run_synth_script(const SynthRequest& request);

// synth-scripts/synth.sh of the data directory; throws InputError when it is not there.
std::string synth_script_path();

// The first executable `name` on PATH, or empty.
std::string find_on_path(const std::string& name);

}  // namespace netasic
