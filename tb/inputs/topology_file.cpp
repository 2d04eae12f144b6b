#include "tb/inputs/topology_file.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tb/inputs/parse_util.h"

namespace netasic {

using input_detail::DataLine;
using input_detail::fail;
using input_detail::quoted;

namespace {

constexpr std::uint64_t kAnyUint = std::numeric_limits<std::uint64_t>::max();

struct Unit {
  std::string_view suffix;
  double scale;
};

// ns-3's DataRate spelling. Byte rates (GBps) are refused rather than converted: in a topology file
// they are almost always a typo for bits, and a silent 8x error in every link rate would go unnoticed.
constexpr Unit kRateUnits[] = {{"bps", 1e-9},  {"Kbps", 1e-6}, {"kbps", 1e-6},
                               {"Mbps", 1e-3}, {"Gbps", 1.0},  {"Tbps", 1e3}};
constexpr const char* kRateAccepted = "bps, Kbps, kbps, Mbps, Gbps, Tbps (e.g. 100Gbps)";

constexpr double kMinRateGbps = kMinLinkRateGbps, kMaxRateGbps = kMaxLinkRateGbps;
constexpr const char* kRateRange = "0.001Gbps (1Mbps) .. 100000Gbps (100Tbps), the range of link.rate_gbps";

// ns-3's Time spelling; ps because the model's time unit is the picosecond.
constexpr Unit kDelayUnits[] = {{"ps", 1e-3}, {"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
constexpr const char* kDelayAccepted = "ps, ns, us, ms, s (e.g. 1000ns)";
constexpr double kMaxDelayNs = kMaxLinkDelayNs;

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

double parse_rate_gbps(const std::string& file, int line, std::string_view token) {
  double value = 0;
  std::string_view unit;
  if (!input_detail::split_number_unit(token, value, unit) || !std::isfinite(value))
    fail(file, line, "rate {} must be a number followed by a unit: {}", quoted(token), kRateAccepted);
  if (unit.empty()) fail(file, line, "rate {} has no unit; accepted units: {}", quoted(token), kRateAccepted);
  const Unit* found = nullptr;
  for (const Unit& u : kRateUnits)
    if (unit == u.suffix) found = &u;
  if (found == nullptr) {
    if (ends_with(unit, "Bps") || ends_with(unit, "B/s"))
      fail(file, line, "rate {} is in bytes per second; write bits per second: {}", quoted(token), kRateAccepted);
    fail(file, line, "rate {} has unknown unit {}; accepted units: {}", quoted(token), quoted(unit), kRateAccepted);
  }
  const double gbps = value * found->scale;
  if (!(gbps > 0)) fail(file, line, "rate must be positive, got {}", quoted(token));
  if (gbps < kMinRateGbps || gbps > kMaxRateGbps)
    fail(file, line, "rate {} is outside the supported {}", quoted(token), kRateRange);
  return gbps;
}

double parse_delay_ns(const std::string& file, int line, std::string_view token) {
  double value = 0;
  std::string_view unit;
  if (!input_detail::split_number_unit(token, value, unit) || !std::isfinite(value))
    fail(file, line, "delay {} must be a number followed by a unit: {}", quoted(token), kDelayAccepted);
  // ns-3 would read a bare number as seconds; "1000" meaning 1000 s is never what a topology means.
  if (unit.empty()) fail(file, line, "delay {} has no unit; accepted units: {}", quoted(token), kDelayAccepted);
  const Unit* found = nullptr;
  for (const Unit& u : kDelayUnits)
    if (unit == u.suffix) found = &u;
  if (found == nullptr)
    fail(file, line, "delay {} has unknown unit {}; accepted units: {}", quoted(token), quoted(unit), kDelayAccepted);
  if (value < 0) fail(file, line, "delay must not be negative, got {}", quoted(token));
  const double ns = value * found->scale;
  if (ns > kMaxDelayNs) fail(file, line, "delay {} is above the supported maximum of 1000s", quoted(token));
  return ns;
}

// `field` names the token in a "not a number" message ("link src"); `subject` starts the range message,
// which names the node: "link names node 999 but the file declares 330 nodes (ids 0..329)".
std::uint32_t parse_node(const std::string& file, int line, std::string_view token, std::string_view field,
                         std::string_view subject, std::uint32_t node_count) {
  const std::uint64_t id = input_detail::parse_uint_field(file, line, token, field, kAnyUint);
  if (id >= node_count)
    fail(file, line, "{} names node {} but the file declares {} nodes (ids 0..{})", subject, id, node_count,
         node_count - 1);
  return static_cast<std::uint32_t>(id);
}

std::uint64_t parse_count(const std::string& file, int line, std::string_view token, std::string_view what,
                          std::string_view why_positive) {
  const std::uint64_t n = input_detail::parse_uint_field(file, line, token, what, kAnyUint);
  if (n == 0) fail(file, line, "{} is 0; {}", what, why_positive);
  return n;
}

// One link line 'src dst rate delay error_rate'; a link must have a switch at one end at least.
TopologyFileLink parse_link_line(const std::string& name, const DataLine& dl, std::uint32_t nodes,
                                 const std::vector<char>& is_switch, int sl) {
  const int ln = dl.number;
  if (dl.fields.size() < 5)
    fail(name, ln, "a link line needs 5 fields 'src dst rate delay error_rate', found {}", dl.fields.size());
  if (dl.fields.size() > 5)
    fail(name, ln, "trailing garbage {} after the 5 fields 'src dst rate delay error_rate'", quoted(dl.fields[5]));

  TopologyFileLink link;
  link.line = ln;
  link.a = parse_node(name, ln, dl.fields[0], "link src", "link", nodes);
  link.b = parse_node(name, ln, dl.fields[1], "link dst", "link", nodes);
  if (link.a == link.b) fail(name, ln, "link connects node {} to itself", link.a);
  link.rate_gbps = parse_rate_gbps(name, ln, dl.fields[2]);
  link.delay_ns = parse_delay_ns(name, ln, dl.fields[3]);
  link.error_rate = input_detail::parse_double_field(name, ln, dl.fields[4], "error_rate");
  // 1 would lose every packet and resend forever.
  if (link.error_rate < 0 || link.error_rate >= 1)
    fail(name, ln, "error_rate {} is outside [0, 1) (a packet loss probability; 0 <= error_rate < 1)",
         quoted(dl.fields[4]));

  if (!is_switch[link.a] && !is_switch[link.b])
    fail(name, ln,
         "link joins two hosts, {} and {} (neither is in the switch list on line {}); a host must link "
         "to a switch",
         link.a, link.b, sl);
  return link;
}

// Every host (a node not in the switch list) needs a link, to a switch.
void check_every_host_linked(const std::string& name, const std::vector<char>& is_switch,
                             const std::vector<int>& host_link_line, int hl, int sl) {
  const auto nodes = static_cast<std::uint32_t>(is_switch.size());
  std::vector<std::uint32_t> unlinked;
  for (std::uint32_t n = 0; n < nodes; ++n)
    if (!is_switch[n] && host_link_line[n] == 0) unlinked.push_back(n);
  if (!unlinked.empty()) {
    std::string others;
    if (unlinked.size() > 1) {
      constexpr std::size_t kShown = 8;
      others = unlinked.size() == 2 ? " (nor does host " : " (nor do hosts ";
      for (std::size_t i = 1; i < unlinked.size() && i <= kShown; ++i)
        others += fmt::format("{}{}", i > 1 ? ", " : "", unlinked[i]);
      if (unlinked.size() - 1 > kShown) others += fmt::format(" and {} more", unlinked.size() - 1 - kShown);
      others += ")";
    }
    fail(name, hl,
         "node {} is a host (not in the switch list on line {}) but no link line names it{}; every host "
         "needs at least one link, to a switch",
         unlinked[0], sl, others);
  }
}

}  // namespace

TopologyFile parse_topology_file_text(std::string_view text, const std::string& name) {
  const input_detail::TextLines parsed = input_detail::split_data_lines(text);
  const std::vector<DataLine>& lines = parsed.lines;
  TopologyFile topo;
  topo.name = name;

  if (lines.empty())
    fail(name, parsed.last_line,
         "the topology file is empty; it must start with a line 'node_count switch_count link_count'");

  // Header.
  const DataLine& header = lines[0];
  const int hl = header.number;
  if (header.fields.size() < 3)
    fail(name, hl, "the first line must be 'node_count switch_count link_count', found {} field{}",
         header.fields.size(), header.fields.size() == 1 ? "" : "s");
  if (header.fields.size() > 3)
    fail(name, hl, "trailing garbage {} after 'node_count switch_count link_count'", quoted(header.fields[3]));
  const std::uint64_t node_count =
      parse_count(name, hl, header.fields[0], "node_count", "a topology needs at least one switch and one host");
  const std::uint64_t switch_count = parse_count(name, hl, header.fields[1], "switch_count",
                                                 "a topology needs at least one switch (hosts link only to switches)");
  const std::uint64_t link_count =
      parse_count(name, hl, header.fields[2], "link_count", "a topology needs at least one link");
  if (node_count > kMaxTopologyNodes)
    fail(name, hl, "node_count {} is above the supported maximum of {} nodes", node_count, kMaxTopologyNodes);
  if (switch_count > node_count)
    fail(name, hl, "switch_count {} is larger than node_count {}; switches are nodes too", switch_count, node_count);
  topo.node_count = static_cast<std::uint32_t>(node_count);
  const auto nodes = topo.node_count;

  // Switch ids.
  if (lines.size() < 2)
    fail(name, parsed.last_line, "the file ends after line {}; the next line must list the {} switch ids", hl,
         switch_count);
  const DataLine& sw = lines[1];
  const int sl = sw.number;
  if (sw.fields.size() != switch_count)
    fail(name, sl, "lists {} switch id{} but line {} declares switch_count {}; all switch ids go on this one line",
         sw.fields.size(), sw.fields.size() == 1 ? "" : "s", hl, switch_count);
  std::vector<char> is_switch(nodes, 0);
  topo.switch_ids.reserve(sw.fields.size());
  for (const std::string_view token : sw.fields) {
    const std::uint32_t id = parse_node(name, sl, token, "switch id", "switch id", nodes);
    if (is_switch[id]) fail(name, sl, "switch id {} is listed twice", id);
    is_switch[id] = 1;
    topo.switch_ids.push_back(id);
  }

  // Links. A host's first link line, so a second link can point at it.
  std::vector<int> host_link_line(nodes, 0);
  topo.links.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(link_count, 1u << 16)));
  for (std::size_t i = 2; i < lines.size(); ++i) {
    const DataLine& dl = lines[i];
    const int ln = dl.number;
    if (topo.links.size() == link_count) {
      input_detail::warn_ignored_tail(name, ln, lines.size() - i, link_count, "links", hl);
      break;
    }
    const TopologyFileLink link = parse_link_line(name, dl, nodes, is_switch, sl);
    for (const std::uint32_t end : {link.a, link.b})  // a host may have several links (multi-homed)
      if (!is_switch[end] && host_link_line[end] == 0) host_link_line[end] = ln;
    topo.links.push_back(link);
  }
  if (topo.links.size() < link_count)
    fail(name, parsed.last_line, "the file ends after {} link line{} but line {} declares link_count {}",
         topo.links.size(), topo.links.size() == 1 ? "" : "s", hl, link_count);

  check_every_host_linked(name, is_switch, host_link_line, hl, sl);
  return topo;
}

TopologyFile read_topology_file(const std::string& path) {
  return parse_topology_file_text(input_detail::read_text_file(path, "topology file"), path);
}

}  // namespace netasic
