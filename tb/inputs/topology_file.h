// The HPCC ns-3 topology file (alibaba-edu/High-Precision-Congestion-Control, mix/topology.txt), so the
// topologies published with HPCC and its successors run unchanged:
//
//   node_count switch_count link_count
//   <switch_count switch node ids, on one line>
//   src dst rate delay error_rate          (link_count lines, e.g. "0 320 100Gbps 1000ns 0")
//
// Every node not listed as a switch is a host with exactly one link, to a switch. Blank lines and lines
// starting with '#' are ignored. See docs/input-files.md for every check and its message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace netasic {

struct TopologyFileLink {
  std::uint32_t a = 0, b = 0;  // as written: a = src, b = dst (links are bidirectional)
  double rate_gbps = 0;
  double delay_ns = 0;
  double error_rate = 0;
  int line = 0;  // so later checks (by the topology builder) can name the line
};

struct TopologyFile {
  std::string name;  // the file name used in messages
  std::uint32_t node_count = 0;
  std::vector<std::uint32_t> switch_ids;  // in file order
  std::vector<TopologyFileLink> links;    // in file order; parallel links between a pair are kept
};

// Throws InputError "<name>:<line>: ..." on the first problem found.
TopologyFile parse_topology_file_text(std::string_view text, const std::string& name);

// As above, named by `path`; InputError if the file cannot be opened.
TopologyFile read_topology_file(const std::string& path);

// The largest node_count accepted: far above any network the model can simulate, and low enough that a
// typo in the count ("330000000000") is reported instead of exhausting memory.
inline constexpr std::uint32_t kMaxTopologyNodes = 1u << 24;

// A link's rate range, the range of link.rate_gbps: below it a packet's serialization time (in picoseconds)
// rounds towards 0 and the link acts as infinitely fast; above it no real link exists.
inline constexpr double kMinLinkRateGbps = 0.001, kMaxLinkRateGbps = 1e5;
// Far above any real link; keeps the delay in picoseconds well inside 64 bits.
inline constexpr double kMaxLinkDelayNs = 1e12;

}  // namespace netasic
