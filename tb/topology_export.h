// `netasic export-topology`: any built topology as GraphML (tb/inputs/graphml.h reads it back), so a
// fabric can be inspected in networkx or Gephi, edited and run again.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "tb/topology.h"

namespace CLI {
class App;
}

namespace netasic {

// Nodes in node-id order (ids "h<host>" and "s<switch>"), each with `type`; one edge per link with
// `rate_gbps` (a degraded link's reduced rate), `delay_ns`, `error_rate` and `degraded`.
void write_graphml(const Topology& t, std::ostream& out);

// The command: builds the topology of `scenario_path` (the built-in default when empty) with the `sets`
// overrides and writes it to `out_path` (stdout when empty or "-"), whole or not at all. InputError on bad
// input, OutputError when the file cannot be written.
int export_topology_command(const std::string& scenario_path, const std::vector<std::string>& sets,
                            const std::string& out_path);

// The `export-topology` subcommand on the command line.
class ExportTopologyCommand {
 public:
  explicit ExportTopologyCommand(CLI::App& app);
  bool parsed() const;
  int run() const { return export_topology_command(scenario_, sets_, out_); }

 private:
  CLI::App* command_;
  std::string scenario_, out_;
  std::vector<std::string> sets_;
};

}  // namespace netasic
