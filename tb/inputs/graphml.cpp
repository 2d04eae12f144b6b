#include "tb/inputs/graphml.h"

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "tb/inputs/parse_util.h"
#include "tb/inputs/xml_lite.h"

namespace netasic {

using input_detail::fail;
using input_detail::quoted;

namespace {

// The attributes netasic reads, by their attr.name, with the key's <default> where one is given.
struct Keys {
  std::map<std::string, std::string> id_to_name;  // key id -> attr.name, for keys of nodes/edges/all
  std::map<std::string, std::string> defaults;    // "node:type", "edge:rate_gbps" -> default text
};

Keys read_keys(const xml::Element& root, const std::string& file) {
  Keys k;
  for (const auto& c : root.children) {
    if (c->name != "key") continue;
    const std::string* id = c->attribute("id");
    const std::string* name = c->attribute("attr.name");
    const std::string* domain = c->attribute("for");
    if (!id) fail(file, c->line, "<key> without an id attribute");
    if (!name) fail(file, c->line, "<key id=\"{}\"> has no attr.name; netasic finds attributes by name", *id);
    if (k.id_to_name.count(*id)) fail(file, c->line, "key id {} is defined twice", quoted(*id));
    k.id_to_name[*id] = *name;
    for (const auto& d : c->children)
      if (d->name == "default") {
        const std::string dom = domain ? *domain : "all";
        for (const char* target : {"node", "edge"})
          if (dom == target || dom == "all") k.defaults[std::string(target) + ":" + *name] = d->text;
      }
  }
  return k;
}

// The element's data values by attribute name, each with its line.
std::map<std::string, std::pair<std::string, int>> data_of(const xml::Element& e, const Keys& keys,
                                                           const std::string& file) {
  std::map<std::string, std::pair<std::string, int>> out;
  for (const auto& d : e.children) {
    if (d->name != "data") continue;
    const std::string* key = d->attribute("key");
    if (!key) fail(file, d->line, "<data> without a key attribute");
    const auto it = keys.id_to_name.find(*key);
    if (it == keys.id_to_name.end())
      fail(file, d->line, "<data key=\"{}\"> names no <key> declared in the file", *key);
    out[it->second] = {d->text, d->line};
  }
  return out;
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// An attribute's text: the element's <data>, else the key's <default>; nullopt when neither.
std::optional<std::pair<std::string, int>> value_of(const std::map<std::string, std::pair<std::string, int>>& data,
                                                    const Keys& keys, const std::string& domain,
                                                    const std::string& attr, int line) {
  const auto it = data.find(attr);
  if (it != data.end()) return std::make_pair(trim(it->second.first), it->second.second);
  const auto d = keys.defaults.find(domain + ":" + attr);
  if (d != keys.defaults.end()) return std::make_pair(trim(d->second), line);
  return std::nullopt;
}

double number_in(const std::string& file, const std::pair<std::string, int>& v, std::string_view attr, double lo,
                 double hi, bool lo_open, std::string_view range) {
  const double x = input_detail::parse_double_field(file, v.second, v.first, attr);
  if (x < lo || x > hi || (lo_open && x == lo)) fail(file, v.second, "{} {} is outside {}", attr, quoted(v.first), range);
  return x;
}

const xml::Element& the_graph(const xml::Element& root, const std::string& file) {
  if (root.name != "graphml") fail(file, root.line, "the root element is <{}>; a GraphML file's is <graphml>", root.name);
  const xml::Element* graph = nullptr;
  for (const auto& c : root.children)
    if (c->name == "graph") {
      if (graph) fail(file, c->line, "a second <graph> (the first is on line {}); a topology is one graph", graph->line);
      graph = c.get();
    }
  if (!graph) fail(file, root.line, "<graphml> holds no <graph>");
  return *graph;
}

void read_nodes(const xml::Element& graph, const Keys& keys, const std::string& file, TopologyFile& topo,
                std::map<std::string, std::uint32_t>& ids, std::vector<char>& is_switch) {
  for (const auto& c : graph.children) {
    if (c->name == "hyperedge") fail(file, c->line, "<hyperedge> is not supported; a link joins two nodes");
    if (c->name != "node") continue;
    const std::string* id = c->attribute("id");
    if (!id) fail(file, c->line, "<node> without an id attribute");
    for (const auto& g : c->children)
      if (g->name == "graph") fail(file, g->line, "nested graphs are not supported (node {})", quoted(*id));
    if (ids.count(*id)) fail(file, c->line, "node id {} is used twice", quoted(*id));
    const auto type = value_of(data_of(*c, keys, file), keys, "node", "type", c->line);
    if (!type)
      fail(file, c->line, "node {} has no 'type' attribute (host or switch), and its key gives no <default>",
           quoted(*id));
    if (type->first != "host" && type->first != "switch")
      fail(file, type->second, "node {} has type {}; accepted: host, switch", quoted(*id), quoted(type->first));
    const auto n = static_cast<std::uint32_t>(ids.size());
    if (n >= kMaxTopologyNodes) fail(file, c->line, "more than the supported {} nodes", kMaxTopologyNodes);
    ids[*id] = n;
    is_switch.push_back(type->first == "switch");
    if (type->first == "switch") topo.switch_ids.push_back(n);
  }
  topo.node_count = static_cast<std::uint32_t>(ids.size());
}

TopologyFileLink read_edge(const xml::Element& e, const Keys& keys, const std::string& file,
                           const std::map<std::string, std::uint32_t>& ids) {
  TopologyFileLink link;
  link.line = e.line;
  auto end = [&](const char* attr) {
    const std::string* v = e.attribute(attr);
    if (!v) fail(file, e.line, "<edge> without a {} attribute", attr);
    const auto it = ids.find(*v);
    if (it == ids.end()) fail(file, e.line, "edge {} {} is not a node of the graph", attr, quoted(*v));
    return it->second;
  };
  link.a = end("source");
  link.b = end("target");
  if (link.a == link.b) fail(file, e.line, "edge connects node {} to itself", quoted(*e.attribute("source")));
  const auto data = data_of(e, keys, file);
  const auto rate = value_of(data, keys, "edge", "rate_gbps", e.line);
  const auto delay = value_of(data, keys, "edge", "delay_ns", e.line);
  if (!rate) fail(file, e.line, "edge has no 'rate_gbps' attribute (Gb/s), and its key gives no <default>");
  if (!delay) fail(file, e.line, "edge has no 'delay_ns' attribute (ns), and its key gives no <default>");
  link.rate_gbps = number_in(file, *rate, "rate_gbps", kMinLinkRateGbps, kMaxLinkRateGbps, false,
                             "the supported 0.001 .. 100000 Gb/s, the range of link.rate_gbps");
  link.delay_ns = number_in(file, *delay, "delay_ns", 0, kMaxLinkDelayNs, false, "0 .. 1e12 ns");
  if (const auto err = value_of(data, keys, "edge", "error_rate", e.line))
    link.error_rate = number_in(file, *err, "error_rate", 0, 1, false, "[0, 1) (a packet loss probability)");
  if (link.error_rate >= 1) fail(file, e.line, "error_rate 1 loses every packet; accepted [0, 1)");
  return link;
}

// Every host has at least one link, each to a switch (a host with several is multi-homed: a NIC port per link).
void check_hosts(const std::string& file, const TopologyFile& topo, const std::vector<char>& is_switch,
                 const std::vector<std::string>& names, int graph_line) {
  std::vector<int> host_line(topo.node_count, 0);
  for (const auto& l : topo.links) {
    if (!is_switch[l.a] && !is_switch[l.b])
      fail(file, l.line, "edge joins two hosts, {} and {}; a host links to a switch", quoted(names[l.a]),
           quoted(names[l.b]));
    for (const std::uint32_t end : {l.a, l.b})  // a host may have several links (multi-homed)
      if (!is_switch[end] && host_line[end] == 0) host_line[end] = l.line;
  }
  for (std::uint32_t n = 0; n < topo.node_count; ++n)
    if (!is_switch[n] && host_line[n] == 0)
      fail(file, graph_line, "host {} has no edge; every host needs at least one link, to a switch", quoted(names[n]));
  if (topo.switch_ids.empty()) fail(file, graph_line, "the graph has no switch (a node of type switch)");
  if (topo.links.empty()) fail(file, graph_line, "the graph has no edge");
}

}  // namespace

TopologyFile parse_graphml_text(std::string_view text, const std::string& name) {
  const std::unique_ptr<xml::Element> root = xml::parse(text, name);
  const xml::Element& graph = the_graph(*root, name);
  const Keys keys = read_keys(*root, name);
  TopologyFile topo;
  topo.name = name;
  std::map<std::string, std::uint32_t> ids;
  std::vector<char> is_switch;
  read_nodes(graph, keys, name, topo, ids, is_switch);
  std::vector<std::string> names(ids.size());
  for (const auto& [id, n] : ids) names[n] = id;
  for (const auto& c : graph.children)
    if (c->name == "edge") topo.links.push_back(read_edge(*c, keys, name, ids));
  check_hosts(name, topo, is_switch, names, graph.line);
  return topo;
}

TopologyFile read_graphml_file(const std::string& path) {
  return parse_graphml_text(input_detail::read_text_file(path, "GraphML topology file"), path);
}

bool is_graphml_path(const std::string& path) {
  constexpr std::string_view ext = ".graphml";
  if (path.size() < ext.size()) return false;
  for (std::size_t i = 0; i < ext.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(path[path.size() - ext.size() + i])) != ext[i]) return false;
  return true;
}

}  // namespace netasic
