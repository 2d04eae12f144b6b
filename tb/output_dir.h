// The run's output directory, kept safe (docs/reliability.md, "Output safety"): checked writable before
// the run, marked RUNNING while the run is in progress (the previous run's results removed first, so an
// interrupted run never leaves complete-looking old files), every file written to a temporary name and
// renamed into place when complete, and inputs inside it never overwritten.
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace netasic {

class Scenario;

// A result could not be written (exit status 1): the message names the file and the system's reason.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputDir {
 public:
  // Creates `dir` with its parents if needed and checks that a file can be written there; InputError
  // (exit 2) naming the directory otherwise.
  explicit OutputDir(std::string dir);

  // InputError if the scenario file or any file a scenario key names is one of the files a run writes
  // into this directory (it would be overwritten).
  void check_inputs(const std::string& scenario_path, const Scenario& s) const;

  // The run starts: the previous run's results and markers are removed and RUNNING is written.
  void begin() const;
  // Writes `name` through `name.tmp`, renamed into place once complete; OutputError on any failure.
  void write(const std::string& name, const std::function<void(std::ostream&)>& writer) const;
  // The run ended and every result is written: RUNNING is removed.
  void finish() const;
  // The run was stopped by `signal_name` at `sim_time_us`: INTERRUPTED says so, RUNNING is removed.
  void interrupted(const std::string& signal_name, double sim_time_us) const;

  const std::string& path() const { return dir_; }
  // Every file a run may write into the directory, results and markers.
  static const std::vector<std::string>& file_names();

 private:
  std::string dir_;
};

// Writes the file `path` through `path.tmp`, renamed into place once complete, so a failed write never
// leaves half a file; OutputError naming the file and the system's reason on any failure.
void write_file(const std::string& path, const std::function<void(std::ostream&)>& writer);

// SIGINT and SIGTERM set a flag the run polls (a second one ends the process at once); 0 until then.
void install_interrupt_handlers();
int interrupt_signal();

}  // namespace netasic
