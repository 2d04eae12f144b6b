#include "tb/inputs/flow_file.h"

#include <algorithm>
#include <limits>

#include "tb/inputs/parse_util.h"

namespace netasic {

using input_detail::DataLine;
using input_detail::fail;
using input_detail::quoted;

namespace {
constexpr const char* kFlowLine = "'src dst priority dport size_bytes start_seconds'";
constexpr const char* kConWeaveLine = "'src dst priority size_bytes start_seconds'";
constexpr std::uint32_t kConWeaveDport = 100;
// Simulated time is a 64-bit count of picoseconds (2^64 ps is about 213 days); a start beyond this is a
// typo, and converting it would overflow.
constexpr double kMaxStartSeconds = 1e6;
}  // namespace

std::vector<FlowFileEntry> parse_flow_file_text(std::string_view text, const std::string& name) {
  const input_detail::TextLines parsed = input_detail::split_data_lines(text);
  const std::vector<DataLine>& lines = parsed.lines;
  if (lines.empty())
    fail(name, parsed.last_line, "the flow file is empty; it must start with a line holding the flow count");

  const DataLine& header = lines[0];
  const int hl = header.number;
  if (header.fields.size() > 1)
    fail(name, hl, "trailing garbage {} after the flow count; the first line holds only the number of flows",
         quoted(header.fields[1]));
  const std::uint64_t count = input_detail::parse_uint_field(name, hl, header.fields[0], "flow count",
                                                             std::numeric_limits<std::uint64_t>::max());

  std::vector<FlowFileEntry> flows;
  flows.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, 1u << 20)));
  // The layout is the first flow line's: 6 fields (HPCC) or 5 (ConWeave, no dport).
  std::size_t layout = 0;
  int layout_line = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const DataLine& dl = lines[i];
    const int ln = dl.number;
    if (flows.size() == count) {
      input_detail::warn_ignored_tail(name, ln, lines.size() - i, count, count == 1 ? "flow" : "flows", hl);
      break;
    }
    if (layout == 0 && (dl.fields.size() == 5 || dl.fields.size() == 6)) {
      layout = dl.fields.size();
      layout_line = ln;
    }
    const char* expected = layout == 5 ? kConWeaveLine : kFlowLine;
    if (dl.fields.size() < 5)
      fail(name, ln, "a flow line needs 6 fields {} (or ConWeave's 5, {}), found {}", kFlowLine, kConWeaveLine,
           dl.fields.size());
    if (dl.fields.size() > 6)
      fail(name, ln, "trailing garbage {} after the 6 fields {}", quoted(dl.fields[6]), kFlowLine);
    if (dl.fields.size() != layout)
      fail(name, ln, "has {} fields but line {} has {}; every flow line of a file uses one layout, {}",
           dl.fields.size(), layout_line, layout, expected);

    FlowFileEntry f;
    f.line = ln;
    constexpr std::uint64_t kMaxNode = std::numeric_limits<std::uint32_t>::max();
    f.src = static_cast<std::uint32_t>(input_detail::parse_uint_field(name, ln, dl.fields[0], "src", kMaxNode));
    f.dst = static_cast<std::uint32_t>(input_detail::parse_uint_field(name, ln, dl.fields[1], "dst", kMaxNode));
    if (f.src == f.dst) fail(name, ln, "flow goes from node {} to itself; src and dst must differ", f.src);
    f.priority = static_cast<std::uint32_t>(
        input_detail::parse_uint_field(name, ln, dl.fields[2], "priority (traffic class)", 7));
    // ConWeave's lines have no dport; HPCC's generator writes 100 there, and so it is taken.
    const std::size_t shift = layout == 5 ? 1 : 0;
    f.dport = layout == 5 ? kConWeaveDport
                          : static_cast<std::uint32_t>(
                                input_detail::parse_uint_field(name, ln, dl.fields[3], "dport", 65535));
    f.size_bytes = input_detail::parse_uint_field(name, ln, dl.fields[4 - shift], "size_bytes",
                                                  std::numeric_limits<std::uint64_t>::max());
    if (f.size_bytes == 0) fail(name, ln, "size_bytes is 0; a flow carries at least 1 byte");
    const std::string_view start = dl.fields[5 - shift];
    f.start_s = input_detail::parse_double_field(name, ln, start, "start_seconds");
    if (f.start_s < 0) fail(name, ln, "start_seconds must not be negative, got {}", quoted(start));
    if (f.start_s > kMaxStartSeconds)
      fail(name, ln, "start_seconds {} is beyond the supported {:.0f} s of simulated time", quoted(start),
           kMaxStartSeconds);
    flows.push_back(f);
  }
  if (flows.size() < count)
    fail(name, parsed.last_line, "the file ends after {} flow line{} but line {} declares {} flow{}", flows.size(),
         flows.size() == 1 ? "" : "s", hl, count, count == 1 ? "" : "s");
  return flows;
}

std::vector<FlowFileEntry> read_flow_file(const std::string& path) {
  return parse_flow_file_text(input_detail::read_text_file(path, "flow file"), path);
}

}  // namespace netasic
