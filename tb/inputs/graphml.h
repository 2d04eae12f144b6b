// Topologies as GraphML graphs (http://graphml.graphdrawing.org/), so networkx and Gephi users can make
// and inspect fabrics: `topology.file: fabric.graphml`.
//
//   node attribute `type`: host or switch (required on every node, or given as the key's <default>)
//   edge attributes `rate_gbps` (Gb/s) and `delay_ns` (ns), required the same way; `error_rate`
//   optional (packet loss probability, default 0)
//
// Each edge is one full-duplex link whatever the graph's edgedefault says; parallel edges are parallel
// links. Nodes are numbered in file order (node ids are names only), so a file written by
// `netasic export-topology` reads back with the same numbering. The rules of the HPCC format hold: every
// host has exactly one link, to a switch. See docs/input-files.md for every check and its message.
#pragma once

#include <string>
#include <string_view>

#include "tb/inputs/topology_file.h"

namespace netasic {

// Throws InputError "<name>:<line>: ..." on the first problem found.
TopologyFile parse_graphml_text(std::string_view text, const std::string& name);

// As above, named by `path`; InputError if the file cannot be opened.
TopologyFile read_graphml_file(const std::string& path);

// Whether `path` names a GraphML file (ends with .graphml, any case).
bool is_graphml_path(const std::string& path);

}  // namespace netasic
