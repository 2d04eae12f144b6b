// The HPCC ns-3 flow file (alibaba-edu/High-Precision-Congestion-Control, mix/flow.txt):
//
//   flow_count
//   src dst priority dport size_bytes start_seconds      (flow_count lines, e.g. "2 1 3 100 200000000 2")
//
// Blank lines and lines starting with '#' are ignored. Whether src and dst are hosts is for the caller to
// check, since only it knows the topology; FlowFileEntry::line lets it name the offending line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace netasic {

struct FlowFileEntry {
  std::uint32_t src = 0, dst = 0;
  std::uint32_t priority = 0;  // 0..7
  std::uint32_t dport = 0;     // 0..65535
  std::uint64_t size_bytes = 0;
  double start_s = 0;  // seconds from the start of the run
  int line = 0;
};

// In file order (not sorted by start time). Throws InputError "<name>:<line>: ..." on the first problem.
std::vector<FlowFileEntry> parse_flow_file_text(std::string_view text, const std::string& name);

// As above, named by `path`; InputError if the file cannot be opened.
std::vector<FlowFileEntry> read_flow_file(const std::string& path);

}  // namespace netasic
