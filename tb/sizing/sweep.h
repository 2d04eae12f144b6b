// `netasic sweep`: a base scenario and a grid of keys, every point run as its own `netasic run` process
// (locally or as one Slurm job array), results gathered into results.csv and results.sqlite.
// See docs/sizing.md for the sweep file format.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace netasic::sizing {

struct SlurmSettings {
  std::string partition, account, time_limit;  // empty: the cluster's defaults
  int array_throttle = 0;                       // 0: no %N limit
  std::vector<std::string> sbatch_args;         // passed to sbatch as they are
};

struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::pair<std::string, std::string>> values;  // swept key -> value text, in column order
  std::string scenario_yaml;  // the point's scenario: every key not at its default
  std::string hash;           // 16 hex digits of FNV-1a over scenario_yaml
};

struct SweepSpec {
  std::string path;                     // the sweep file
  std::vector<std::string> swept_keys;  // grid keys, zipped keys, then sim.seed when seeds are given
  std::vector<SweepPoint> points;
  std::string size_key;                 // report.size_key, or the first swept table-size key
  SlurmSettings slurm;
};

// Reads and validates a sweep file: every key known and every value accepted (InputError naming the key
// otherwise), no empty list, zipped lists of one length. Nothing runs.
SweepSpec load_sweep(const std::string& path);

struct SweepOptions {
  std::string file;
  int jobs = 0;                 // local workers; 0: the core count
  std::string backend = "local";
  std::string out;              // default out/sweeps/<file stem>
  std::string report;           // "" or "knee"
  std::string size_key;         // overrides the sweep file's report.size_key
  std::string binary;           // default: this executable (/proc/self/exe)
  int retries = 1;              // extra attempts for a failed point
  SlurmSettings slurm;          // merged over the sweep file's slurm: section
  bool dry_run = false;         // validate and list points only
};

// Runs (or resumes) a sweep. Exit status: 0 every point done, 4 some points failed, 2 bad input.
int run_sweep(const SweepOptions& opts);

// Pieces exposed for tests.
std::string fnv1a_hex(const std::string& text);
struct KneeRow {
  std::string group;      // the other swept keys' values, "k=v k=v" ("" when none)
  std::string knee;       // smallest size value from which every larger one is within tolerance ("" when none)
  std::string largest;    // the reference (largest) size value
  double reference_p99 = 0, knee_p99 = 0;
};
// rows: one per gathered point (key -> value text, including "fct_p99_ns" and "status").
std::vector<KneeRow> knee_report(const std::vector<std::string>& swept_keys, const std::string& size_key,
                                 const std::vector<std::map<std::string, std::string>>& rows, double tolerance = 0.05);

}  // namespace netasic::sizing
