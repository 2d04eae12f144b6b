// Where the netasic binary finds the files it reads or runs at run time (the synthesis scripts and the RTL
// they read, the sweep plot script, the example configurations): the `share/netasic` directory of its
// installation, found from the binary's own path, so an installed tree can be moved anywhere.
#pragma once

#include <filesystem>

namespace netasic {

// <dir of the binary>/share/netasic (a build tree: links into the source tree, made by CMake), else
// <prefix>/share/netasic for an installed <prefix>/bin/netasic. Empty when neither exists.
std::filesystem::path data_dir();

}  // namespace netasic
