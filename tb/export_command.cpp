// The `export-topology` subcommand's options (in the executable, which links CLI11; the library does not).
#include <CLI/CLI.hpp>

#include "tb/topology_export.h"

namespace netasic {

ExportTopologyCommand::ExportTopologyCommand(CLI::App& app)
    : command_(app.add_subcommand("export-topology", "Write a scenario's topology as GraphML (docs/input-files.md)")) {
  command_->add_option("scenario", scenario_, "Scenario YAML file (the built-in default when none is given)");
  command_->add_option("--set", sets_, "Override a scenario key: KEY=VALUE (repeatable)");
  command_->add_option("-o,--out", out_, "GraphML file to write (stdout when not given)");
}

bool ExportTopologyCommand::parsed() const { return command_->parsed(); }

}  // namespace netasic
