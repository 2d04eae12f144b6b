// The sizing subcommands of `netasic`: size (analytic), sweep (many runs), plot (PNG from results.csv).
// main.cpp adds them with add_commands() and, after parsing, calls run() when one of them was chosen.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "tb/sizing/sweep.h"

namespace netasic::sizing {

class Commands {
 public:
  explicit Commands(CLI::App& app);
  bool parsed() const;
  int run() const;  // throws InputError on bad input (main turns it into exit status 2)

 private:
  CLI::App *size_, *sweep_, *plot_;
  std::vector<std::string> size_sets_;
  std::string size_vs_;
  bool size_json_ = false;
  bool size_silicon_ = false, size_yosys_ = false;
  SweepOptions sweep_opts_;
  std::string plot_csv_, plot_x_, plot_y_, plot_series_, plot_out_, plot_title_;
  bool plot_logx_ = false;
};

std::unique_ptr<Commands> add_commands(CLI::App& app);

// Runs tb/sizing/plot.py with /usr/bin/python3; returns its exit status.
int plot(const std::string& csv, const std::string& x, const std::string& y, const std::string& series,
         const std::string& out, const std::string& title, bool logx);

}  // namespace netasic::sizing
