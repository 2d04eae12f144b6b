// The `export-topology` and `partition` subcommands' options (in the executable, which links CLI11; the
// library does not).
#include <CLI/CLI.hpp>

#include "tb/partition.h"
#include "tb/topology_export.h"

namespace netasic {

ExportTopologyCommand::ExportTopologyCommand(CLI::App& app)
    : command_(app.add_subcommand("export-topology", "Write a scenario's topology as GraphML (docs/input-files.md)")) {
  command_->add_option("scenario", scenario_, "Scenario YAML file (the built-in default when none is given)");
  command_->add_option("--set", sets_, "Override a scenario key: KEY=VALUE (repeatable)");
  command_->add_option("-o,--out", out_, "GraphML file to write (stdout when not given)");
}

bool ExportTopologyCommand::parsed() const { return command_->parsed(); }

PartitionCommand::PartitionCommand(CLI::App& app)
    : command_(app.add_subcommand("partition",
                                  "Partition a scenario's fabric across N ranks: each rank's load, the cut links and the "
                                  "lookahead (docs/parallel.md)")) {
  command_->add_option("scenario", scenario_, "Scenario YAML file (the built-in default when none is given)");
  command_->add_option("--set", sets_, "Override a scenario key: KEY=VALUE (repeatable)");
  command_->add_option("-n,--ranks", ranks_, "Number of ranks")->capture_default_str()->check(CLI::Range(1u, 65536u));
  command_->add_option("--by", by_, "auto, pod (fat tree, leaf-spine), group (dragonfly) or contiguous")
      ->capture_default_str();
  command_->add_option("--json", json_, "Also write every node's rank and the cut links to this JSON file");
}

bool PartitionCommand::parsed() const { return command_->parsed(); }

}  // namespace netasic
