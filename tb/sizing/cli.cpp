#include "tb/sizing/cli.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <sys/wait.h>
#include <unistd.h>

#include "tb/data_dir.h"
#include "tb/sizing/analytic.h"
#include "tb/sizing/silicon.h"
#include "tlm/common/error.h"

namespace fs = std::filesystem;

namespace netasic::sizing {

Commands::Commands(CLI::App& app) {
  size_ = app.add_subcommand("size", "Analytic table sizing: Flowcut active flows (eq. 1) x bytes per flow, and more");
  std::string keys_help;
  for (const auto& k : size_keys())
    keys_help += fmt::format("\n  {:<22} {:>6}  default {:<8} {}", k.name, k.unit, k.default_value, k.description);
  keys_help += fmt::format("\n  {:<22} {:>6}  default {:<8} {}", "entries", "-", "auto",
                           "with --silicon: the entries of every RTL block, a power of two 8..1048576; auto: each "
                           "table's entries above, rounded up to a power of two (docs/sizing.md)");
  size_->footer("Keys (KEY=VALUE):" + keys_help);
  size_->add_option("assignments", size_sets_, "Inputs as KEY=VALUE (see below)");
  size_->add_option("--set", size_sets_, "An input KEY=VALUE (repeatable)");
  size_->add_option("--vs", size_vs_, "A series over one key: KEY=a,b,c");
  size_->add_flag("--json", size_json_, "Print JSON instead of the table");
  size_->add_flag("--silicon", size_silicon_,
                  "Also the RTL blocks' silicon (memory bits, NAND2-eq gates, flip-flops, logic depth, clock) at "
                  "entries=N (a power of two, 8..1048576), or without it at each table's entries rounded up to a "
                  "power of two");
  size_->add_flag("--yosys", size_yosys_,
                  "With --silicon: also synthesize the blocks with Yosys at that size (the CAM up to 128 entries)");

  sweep_ = app.add_subcommand("sweep", "Run a grid of scenarios (one process per point) and gather results.csv");
  sweep_->add_option("sweep_file", sweep_opts_.file, "Sweep YAML file (docs/sizing.md)")->required();
  sweep_->add_option("-j,--jobs", sweep_opts_.jobs, "Local worker processes, 0..4096 (default 0: the core count)");
  sweep_->add_option("--backend", sweep_opts_.backend, "local or slurm")->capture_default_str();
  sweep_->add_option("--out", sweep_opts_.out, "Output directory (default out/sweeps/<file stem>)");
  sweep_->add_option("--report", sweep_opts_.report, "knee: smallest table from which every larger one is within 5% of the largest's p99 FCT");
  sweep_->add_option("--size-key", sweep_opts_.size_key, "Swept key --report knee sizes (default: from the file)");
  sweep_->add_option("--retries", sweep_opts_.retries, "Extra attempts for a failed point, 0..100")->capture_default_str();
  sweep_->add_flag("--dry-run", sweep_opts_.dry_run, "Validate and list the points, run nothing");
  sweep_->add_option("--partition", sweep_opts_.slurm.partition, "slurm: partition");
  sweep_->add_option("--account", sweep_opts_.slurm.account, "slurm: account");
  sweep_->add_option("--time", sweep_opts_.slurm.time_limit, "slurm: time limit per point (e.g. 00:30:00)");
  sweep_->add_option("--throttle", sweep_opts_.slurm.array_throttle, "slurm: at most N array tasks at once");
  sweep_->add_option("--sbatch-arg", sweep_opts_.slurm.sbatch_args, "slurm: extra sbatch option (repeatable)");

  plot_ = app.add_subcommand("plot", "Line plot (PNG) of a sweep's results.csv");
  plot_->add_option("results_csv", plot_csv_, "results.csv of a sweep")->required();
  plot_->add_option("--x", plot_x_, "Column for the x axis (a swept key)")->required();
  plot_->add_option("--y", plot_y_, "Figure column for the y axis, e.g. fct_p99_ns")->required();
  plot_->add_option("--series", plot_series_, "Column whose values give one line each");
  plot_->add_option("--out", plot_out_, "PNG file (default: next to the CSV, <y>-vs-<x>.png)");
  plot_->add_option("--title", plot_title_, "Plot title");
  plot_->add_flag("--logx", plot_logx_, "Logarithmic x axis (base 2)");
}

bool Commands::parsed() const { return size_->parsed() || sweep_->parsed() || plot_->parsed(); }

int Commands::run() const {
  if (size_->parsed()) {
    SizeInputs in;
    std::optional<double> entries;  // entries=N: the size --silicon builds the blocks at (not a model input)
    for (const auto& a : size_sets_) {
      if (a.rfind("entries=", 0) != 0) {
        in.set_assignment(a);
        continue;
      }
      if (!size_silicon_) throw InputError("size: key 'entries' sizes the RTL blocks: it needs --silicon");
      const std::string v = a.substr(8);
      entries = v == "auto" ? std::nullopt : std::optional<double>(parse_silicon_entries(v));
    }
    if (size_yosys_ && !size_silicon_) throw InputError("size: --yosys needs --silicon");
    if (size_silicon_ && !size_vs_.empty()) throw InputError("size: --silicon and --vs do not go together");
    if (size_silicon_) {
      const SizeResult r = compute(in);
      std::vector<SiliconRow> rows = silicon_rows(r, entries);
      if (size_yosys_) run_yosys(rows);
      if (size_json_) {
        nlohmann::json j = to_json(in, r);
        j["silicon"] = silicon_json(rows);
        std::cout << j.dump(2) << "\n";
      } else {
        std::cout << to_table(in, r) << silicon_table(rows, in);
      }
      return 0;
    }
    if (!size_vs_.empty()) {
      const Series s = compute_series(in, size_vs_);
      std::cout << (size_json_ ? to_json(in, s).dump(2) + "\n" : to_table(s));
    } else {
      const SizeResult r = compute(in);
      std::cout << (size_json_ ? to_json(in, r).dump(2) + "\n" : to_table(in, r));
    }
    return 0;
  }
  if (sweep_->parsed()) return run_sweep(sweep_opts_);
  return plot(plot_csv_, plot_x_, plot_y_, plot_series_, plot_out_, plot_title_, plot_logx_);
}

std::unique_ptr<Commands> add_commands(CLI::App& app) { return std::make_unique<Commands>(app); }

int plot(const std::string& csv, const std::string& x, const std::string& y, const std::string& series,
         const std::string& out, const std::string& title, bool logx) {
  if (access(csv.c_str(), R_OK) != 0) throw InputError(fmt::format("plot: cannot read {}", csv));
  // The script sits next to the binary (copied there by the build) or in the data directory.
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::string script;
  const fs::path data = data_dir();
  for (const fs::path& p : {exe.parent_path() / "netasic-plot.py", data.empty() ? fs::path() : data / "tb/sizing/plot.py"})
    if (!ec && !p.empty() && fs::exists(p)) {
      script = p.string();
      break;
    }
  if (script.empty())
    throw InputError(fmt::format("plot: netasic-plot.py not found next to the binary nor in the data directory '{}'",
                                 data.string()));
  const char* python = "/usr/bin/python3";
  if (access(python, X_OK) != 0) throw InputError("plot: /usr/bin/python3 not found (scripts/install-deps.sh installs it)");
  const std::string png = out.empty() ? (fs::path(csv).parent_path() / (y + "-vs-" + x + ".png")).string() : out;
  std::vector<std::string> args = {python, script, csv, "--x", x, "--y", y, "--out", png};
  if (!series.empty()) args.insert(args.end(), {"--series", series});
  if (!title.empty()) args.insert(args.end(), {"--title", title});
  if (logx) args.push_back("--logx");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = fork();
  if (pid == 0) {
    execv(python, argv.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (rc == 0) std::cout << "plot: wrote " << png << "\n";
  return rc;
}

}  // namespace netasic::sizing
