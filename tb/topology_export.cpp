#include "tb/topology_export.h"

#include <fmt/format.h>

#include <iostream>
#include <string>

#include "tb/output_dir.h"

namespace netasic {

namespace {
// A multi-homed host's further ports are nodes of the model's own; they are written as the host they belong to.
std::string node_name(const Topology& t, std::uint32_t n) {
  return t.is_switch(n) ? fmt::format("s{}", t.switch_index[n])
                        : fmt::format("h{}", t.owner(static_cast<std::uint32_t>(t.host_index[n])));
}
bool port_node(const Topology& t, std::uint32_t n) {
  return !t.is_switch(n) && t.owner(static_cast<std::uint32_t>(t.host_index[n])) !=
                                static_cast<std::uint32_t>(t.host_index[n]);
}

std::string escaped(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}
}  // namespace

void write_graphml(const Topology& t, std::ostream& out) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
         "  <key id=\"type\" for=\"node\" attr.name=\"type\" attr.type=\"string\"/>\n"
         "  <key id=\"rate_gbps\" for=\"edge\" attr.name=\"rate_gbps\" attr.type=\"double\"/>\n"
         "  <key id=\"delay_ns\" for=\"edge\" attr.name=\"delay_ns\" attr.type=\"double\"/>\n"
         "  <key id=\"error_rate\" for=\"edge\" attr.name=\"error_rate\" attr.type=\"double\"/>\n"
         "  <key id=\"degraded\" for=\"edge\" attr.name=\"degraded\" attr.type=\"boolean\"/>\n";
  out << fmt::format("  <graph id=\"G\" edgedefault=\"undirected\">\n    <desc>{}</desc>\n", escaped(t.description));
  for (std::uint32_t n = 0; n < t.nodes; ++n)
    if (!port_node(t, n))
      out << fmt::format("    <node id=\"{}\"><data key=\"type\">{}</data></node>\n", node_name(t, n),
                         t.is_switch(n) ? "switch" : "host");
  for (const TopoLink& l : t.links)
    out << fmt::format(
        "    <edge source=\"{}\" target=\"{}\"><data key=\"rate_gbps\">{}</data><data key=\"delay_ns\">{}</data>"
        "<data key=\"error_rate\">{}</data><data key=\"degraded\">{}</data></edge>\n",
        node_name(t, l.a), node_name(t, l.b), l.rate_gbps * l.scale, l.delay_ns, l.error_rate,
        l.degraded ? "true" : "false");
  out << "  </graph>\n</graphml>\n";
}

int export_topology_command(const std::string& scenario_path, const std::vector<std::string>& sets,
                            const std::string& out_path) {
  Scenario s;
  if (!scenario_path.empty()) s.load_yaml_file(scenario_path);
  for (const auto& a : sets) s.set_assignment(a);
  const Topology t = build_topology(s);
  if (out_path.empty() || out_path == "-") {
    write_graphml(t, std::cout);
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  write_file(out_path, [&](std::ostream& f) { write_graphml(t, f); });  // whole or not at all
  std::cerr << fmt::format("export-topology: {} ({} nodes, {} links) -> {}\n", t.description,
                           t.nodes - (t.hosts() - t.user_hosts()), t.links.size(),
                           out_path);
  return 0;
}

}  // namespace netasic
