#include "tb/topology.h"

#include "tb/choices.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tb/inputs/graphml.h"
#include "tb/inputs/topology_file.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"
#include "tlm/model/switch.h"

namespace netasic {

namespace {

// Lays out `hosts` host nodes then `switches` switch nodes.
void init_nodes(Topology& t, std::uint32_t hosts, std::uint32_t switches) {
  t.nodes = hosts + switches;
  t.switch_index.assign(t.nodes, -1);
  t.host_index.assign(t.nodes, -1);
  for (std::uint32_t h = 0; h < hosts; ++h) {
    t.host_index[h] = static_cast<std::int32_t>(h);
    t.host_node.push_back(h);
  }
  for (std::uint32_t s = 0; s < switches; ++s) {
    t.switch_index[hosts + s] = static_cast<std::int32_t>(s);
    t.switch_node.push_back(hosts + s);
  }
}

void add(Topology& t, std::uint32_t a, std::uint32_t b, double rate, double delay) {
  t.links.push_back(TopoLink{a, b, rate, delay, 0.0, 1.0, false});
}

Topology fat_tree(const Scenario& s, double rate, double delay) {
  const auto k = static_cast<std::uint32_t>(s.integer("topology.fat_tree.k"));
  if (k % 2) throw InputError(fmt::format("topology.fat_tree.k = {}: must be even (accepted 2..64)", k));
  const double taper = s.number("topology.fat_tree.taper");
  const std::uint32_t half = k / 2;
  const auto hosts_per_edge = static_cast<std::uint32_t>(std::lround(half * taper));
  // Hosts per edge switch are taper * k/2 and must be whole: rounding would build another taper than asked.
  if (std::fabs(half * taper - hosts_per_edge) > 1e-9)
    throw InputError(fmt::format("topology.fat_tree.taper = {}: with k = {} the hosts per edge switch, taper * k/2 "
                                 "= {:.6g}, are not whole; accepted for k = {}: multiples of 1/{} (e.g. {:.4g}, {:.4g}, {:.4g})",
                                 taper, k, half * taper, k, half, 1.0 + 1.0 / half, 1.0 + 2.0 / half,
                                 1.0 + 3.0 / half));
  if (hosts_per_edge + half > kMaxSwitchRadix)
    throw InputError(fmt::format("topology.fat_tree: k = {} with taper {} gives edge switches {} ports; the switch "
                                 "model accepts at most {}",
                                 k, taper, hosts_per_edge + half, kMaxSwitchRadix));
  const std::uint32_t edges = k * half, aggs = k * half, cores = half * half;
  const std::uint32_t hosts = edges * hosts_per_edge;
  Topology t;
  t.type = TopologyType::fat_tree;
  t.description = fmt::format("3-tier fat tree k={} taper={}: {} hosts, {} switches", k, taper, hosts,
                              edges + aggs + cores);
  init_nodes(t, hosts, edges + aggs + cores);
  const std::uint32_t edge0 = hosts, agg0 = hosts + edges, core0 = hosts + edges + aggs;
  t.pod_of.assign(edges + aggs + cores, -1);
  for (std::uint32_t e = 0; e < edges; ++e) t.pod_of[e] = t.pod_of[edges + e] = static_cast<std::int32_t>(e / half);
  for (std::uint32_t e = 0; e < edges; ++e)
    for (std::uint32_t h = 0; h < hosts_per_edge; ++h) add(t, e * hosts_per_edge + h, edge0 + e, rate, delay);
  for (std::uint32_t pod = 0; pod < k; ++pod)
    for (std::uint32_t e = 0; e < half; ++e)
      for (std::uint32_t a = 0; a < half; ++a) add(t, edge0 + pod * half + e, agg0 + pod * half + a, rate, delay);
  for (std::uint32_t pod = 0; pod < k; ++pod)
    for (std::uint32_t a = 0; a < half; ++a)
      for (std::uint32_t c = 0; c < half; ++c) add(t, agg0 + pod * half + a, core0 + a * half + c, rate, delay);
  return t;
}

std::pair<std::uint32_t, std::uint32_t> parse_pair(const std::string& item, const std::string& key,
                                                   std::uint32_t leaves, std::uint32_t spines) {
  unsigned l = 0, sp = 0;
  char dash = 0;
  int used = 0;
  // All of it: "0-1:0.5" in remove_links (meant for slow_links) must not remove link 0-1.
  if (std::sscanf(item.c_str(), "%u%c%u%n", &l, &dash, &sp, &used) != 3 || dash != '-' ||
      static_cast<std::size_t>(used) != item.size())
    throw InputError(fmt::format("{}: '{}' is not LEAF-SPINE", key, item));
  if (l >= leaves || sp >= spines)
    throw InputError(fmt::format("{}: '{}' names leaf {} / spine {}; accepted leaves 0..{}, spines 0..{}", key, item, l,
                                 sp, leaves - 1, spines - 1));
  return {l, sp};
}

Topology leaf_spine(const Scenario& s, double rate, double delay) {
  const auto leaves = static_cast<std::uint32_t>(s.integer("topology.leaf_spine.leaves"));
  const auto spines = static_cast<std::uint32_t>(s.integer("topology.leaf_spine.spines"));
  const auto hpl = static_cast<std::uint32_t>(s.integer("topology.leaf_spine.hosts_per_leaf"));
  if (hpl + spines > kMaxSwitchRadix)
    throw InputError(fmt::format("topology.leaf_spine: hosts_per_leaf {} + spines {} exceeds the {}-port switch", hpl,
                                 spines, kMaxSwitchRadix));
  if (leaves > kMaxSwitchRadix)
    throw InputError(fmt::format("topology.leaf_spine.leaves = {}: a spine has one port per leaf, at most {}", leaves,
                                 kMaxSwitchRadix));
  const std::uint32_t hosts = leaves * hpl;
  Topology t;
  t.type = TopologyType::leaf_spine;
  init_nodes(t, hosts, leaves + spines);
  t.pod_of.assign(leaves + spines, -1);
  for (std::uint32_t l = 0; l < leaves; ++l) t.pod_of[l] = static_cast<std::int32_t>(l);
  std::vector<double> scale(std::size_t{leaves} * spines, 1.0);
  const std::string rk = "topology.leaf_spine.remove_links", sk = "topology.leaf_spine.slow_links";
  for (const auto& item : s.list(rk)) {
    auto [l, sp] = parse_pair(item, rk, leaves, spines);
    scale[std::size_t{l} * spines + sp] = 0;
  }
  for (const auto& item : s.list(sk)) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) throw InputError(fmt::format("{}: '{}' is not LEAF-SPINE:FACTOR", sk, item));
    auto [l, sp] = parse_pair(item.substr(0, colon), sk, leaves, spines);
    const std::string factor = item.substr(colon + 1);
    char* end = nullptr;
    const double f = std::strtod(factor.c_str(), &end);
    if (*end || !is_plain_decimal(factor, true) || !(f > 0 && f <= 1))
      throw InputError(fmt::format("{}: '{}': FACTOR must be a plain decimal number in (0, 1]", sk, item));
    scale[std::size_t{l} * spines + sp] = f;
  }
  for (std::uint32_t l = 0; l < leaves; ++l)
    for (std::uint32_t h = 0; h < hpl; ++h) add(t, l * hpl + h, hosts + l, rate, delay);
  std::uint32_t removed = 0, slowed = 0;
  for (std::uint32_t l = 0; l < leaves; ++l)
    for (std::uint32_t sp = 0; sp < spines; ++sp) {
      const double f = scale[std::size_t{l} * spines + sp];
      if (f == 0) {
        ++removed;
        continue;
      }
      add(t, hosts + l, hosts + leaves + sp, rate, delay);
      if (f < 1) {
        t.links.back().scale = f;
        ++slowed;
      }
    }
  t.description = fmt::format("leaf-spine {} leaves x {} spines, {} hosts ({} links removed, {} slowed)", leaves,
                              spines, hosts, removed, slowed);
  return t;
}

Topology dragonfly(const Scenario& s, double rate, double delay) {
  const auto a = static_cast<std::uint32_t>(s.integer("topology.dragonfly.a"));
  const auto p = static_cast<std::uint32_t>(s.integer("topology.dragonfly.p"));
  const auto h = static_cast<std::uint32_t>(s.integer("topology.dragonfly.h"));
  auto g = static_cast<std::uint32_t>(s.integer("topology.dragonfly.groups"));
  if (g == 0) g = a * h / 2 + 1;  // at least two global links between each pair of groups
  if (g < 2 || g > a * h + 1)
    throw InputError(fmt::format("topology.dragonfly.groups = {}: accepted 2..a*h+1 = {} (0 means a*h/2+1)", g, a * h + 1));
  if (p + (a - 1) + h > kMaxSwitchRadix)
    throw InputError(fmt::format("topology.dragonfly: p + a-1 + h = {} ports exceeds the {}-port switch", p + a - 1 + h,
                                 kMaxSwitchRadix));
  const std::uint32_t switches = g * a, hosts = switches * p;
  Topology t;
  t.type = TopologyType::dragonfly;
  init_nodes(t, hosts, switches);
  t.group_of.resize(switches);
  for (std::uint32_t sw = 0; sw < switches; ++sw) t.group_of[sw] = sw / a;
  for (std::uint32_t sw = 0; sw < switches; ++sw)
    for (std::uint32_t k = 0; k < p; ++k) add(t, sw * p + k, hosts + sw, rate, delay);
  for (std::uint32_t grp = 0; grp < g; ++grp)
    for (std::uint32_t i = 0; i < a; ++i)
      for (std::uint32_t j = i + 1; j < a; ++j) add(t, hosts + grp * a + i, hosts + grp * a + j, rate, delay);
  // Global links: rounds over group pairs, each pair joined once per round while both groups have a free
  // global port; global port q of a group belongs to its switch q / h.
  std::vector<std::uint32_t> next_port(g, 0);
  std::uint32_t globals = 0;
  for (bool progress = true; progress;) {
    progress = false;
    for (std::uint32_t x = 0; x < g; ++x)
      for (std::uint32_t y = x + 1; y < g; ++y) {
        if (next_port[x] >= a * h || next_port[y] >= a * h) continue;
        add(t, hosts + x * a + next_port[x] / h, hosts + y * a + next_port[y] / h, rate, delay);
        ++next_port[x];
        ++next_port[y];
        ++globals;
        progress = true;
      }
  }
  const std::uint32_t fewest = a * h / (g - 1), most = fewest + (a * h % (g - 1) ? 1 : 0);
  t.description = fmt::format("dragonfly a={} p={} h={} groups={}: {} hosts, {} switches, {} global links ({} per "
                              "pair of groups)",
                              a, p, h, g, hosts, switches, globals,
                              fewest == most ? std::to_string(fewest) : fmt::format("{} or {}", fewest, most));
  return t;
}

Topology torus(const Scenario& s, double rate, double delay) {
  const auto x = static_cast<std::uint32_t>(s.integer("topology.torus.x"));
  const auto y = static_cast<std::uint32_t>(s.integer("topology.torus.y"));
  const auto hps = static_cast<std::uint32_t>(s.integer("topology.torus.hosts_per_switch"));
  if (hps + 4 > kMaxSwitchRadix)
    throw InputError(fmt::format("topology.torus.hosts_per_switch = {}: with 4 torus links at most {}", hps,
                                 kMaxSwitchRadix - 4));
  const std::uint32_t switches = x * y, hosts = switches * hps;
  Topology t;
  t.type = TopologyType::torus;
  init_nodes(t, hosts, switches);
  for (std::uint32_t sw = 0; sw < switches; ++sw)
    for (std::uint32_t h = 0; h < hps; ++h) add(t, sw * hps + h, hosts + sw, rate, delay);
  auto id = [&](std::uint32_t i, std::uint32_t j) { return hosts + j * x + i; };
  // A ring of two is one link (no parallel wrap-around link).
  for (std::uint32_t j = 0; j < y; ++j)
    for (std::uint32_t i = 0; i < x; ++i) {
      if (i + 1 < x || x > 2) add(t, id(i, j), id((i + 1) % x, j), rate, delay);
      if (j + 1 < y || y > 2) add(t, id(i, j), id(i, (j + 1) % y), rate, delay);
    }
  t.description = fmt::format("2D torus {}x{}, {} hosts per switch: {} hosts", x, y, hps, hosts);
  return t;
}

Topology irregular(const Scenario& s, double rate, double delay) {
  const auto n = static_cast<std::uint32_t>(s.integer("topology.irregular.switches"));
  const auto ports = static_cast<std::uint32_t>(s.integer("topology.irregular.ports"));
  const auto hps = static_cast<std::uint32_t>(s.integer("topology.irregular.hosts_per_switch"));
  if (hps >= ports)
    throw InputError(fmt::format("topology.irregular.hosts_per_switch = {} leaves no port of topology.irregular.ports = {} "
                                 "for other switches",
                                 hps, ports));
  const std::uint32_t degree = ports - hps;
  if (degree >= n)
    throw InputError(fmt::format("topology.irregular: {} switch ports per switch need more than {} switches (one link "
                                 "per pair)",
                                 degree, n));
  const std::uint32_t hosts = n * hps;
  // Random regular-degree graph from the seed: pair free ports at random, one link per switch pair, and
  // redraw until it is connected (a switch may keep a port free when no partner is left).
  Rng rng(static_cast<std::uint64_t>(s.integer("sim.seed")), 0x1226E6);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (int attempt = 0; attempt < 200; ++attempt) {
    edges.clear();
    std::vector<std::uint32_t> free(n, degree);
    std::vector<std::vector<bool>> linked(n, std::vector<bool>(n, false));
    for (int tries = 0; tries < 100000; ++tries) {
      std::vector<std::uint32_t> open;
      for (std::uint32_t v = 0; v < n; ++v)
        if (free[v]) open.push_back(v);
      if (open.size() < 2) break;
      const std::uint32_t a = open[rng.below(open.size())], b = open[rng.below(open.size())];
      if (a == b || linked[a][b]) {
        bool any = false;  // is any pair still possible?
        for (std::size_t i = 0; i < open.size() && !any; ++i)
          for (std::size_t j = i + 1; j < open.size() && !any; ++j) any = !linked[open[i]][open[j]];
        if (!any) break;
        continue;
      }
      linked[a][b] = linked[b][a] = true;
      --free[a];
      --free[b];
      edges.emplace_back(a, b);
    }
    // Connected?
    std::vector<std::vector<std::uint32_t>> adj(n);
    for (auto [a, b] : edges) {
      adj[a].push_back(b);
      adj[b].push_back(a);
    }
    std::vector<bool> seen(n, false);
    std::vector<std::uint32_t> stack{0};
    seen[0] = true;
    std::uint32_t reached = 1;
    while (!stack.empty()) {
      const std::uint32_t u = stack.back();
      stack.pop_back();
      for (std::uint32_t v : adj[u])
        if (!seen[v]) {
          seen[v] = true;
          ++reached;
          stack.push_back(v);
        }
    }
    if (reached == n) break;
    if (attempt == 199)
      throw InputError(fmt::format("topology.irregular: no connected network of {} switches with {} links each found "
                                   "in 200 draws; add ports or switches",
                                   n, degree));
  }
  Topology t;
  t.type = TopologyType::irregular;
  init_nodes(t, hosts, n);
  for (std::uint32_t sw = 0; sw < n; ++sw)
    for (std::uint32_t h = 0; h < hps; ++h) add(t, sw * hps + h, hosts + sw, rate, delay);
  for (auto [a, b] : edges) add(t, hosts + a, hosts + b, rate, delay);
  t.description = fmt::format("random irregular network: {} switches of {} ports, {} hosts each, {} switch links",
                              n, ports, hps, edges.size());
  return t;
}

Topology from_file(const Scenario& s) {
  const std::string& path = s.string("topology.file");
  if (path.empty()) throw InputError("topology.type is file but topology.file is not set");
  const TopologyFile f = is_graphml_path(path) ? read_graphml_file(path) : read_topology_file(path);
  Topology t;
  t.type = TopologyType::file;
  t.nodes = f.node_count;
  t.switch_index.assign(t.nodes, -1);
  t.host_index.assign(t.nodes, -1);
  for (std::uint32_t id : f.switch_ids) t.switch_index[id] = 0;
  for (std::uint32_t n = 0; n < t.nodes; ++n) {
    if (t.switch_index[n] >= 0) {
      t.switch_index[n] = static_cast<std::int32_t>(t.switch_node.size());
      t.switch_node.push_back(n);
    } else {
      t.host_index[n] = static_cast<std::int32_t>(t.host_node.size());
      t.host_node.push_back(n);
    }
  }
  std::vector<std::uint32_t> degree(t.nodes, 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> extra_ports;  // (link index, file host node)
  for (const auto& l : f.links) {
    t.links.push_back(TopoLink{l.a, l.b, l.rate_gbps, l.delay_ns, l.error_rate, 1.0, false});
    if (++degree[l.a] > kMaxSwitchRadix || ++degree[l.b] > kMaxSwitchRadix)
      throw InputError(fmt::format("{}:{}: a switch with more than {} links; the switch model accepts at most {} ports",
                                   f.name, l.line, kMaxSwitchRadix, kMaxSwitchRadix));
    for (const std::uint32_t end : {l.a, l.b})
      if (t.switch_index[end] < 0 && degree[end] > 1) extra_ports.emplace_back(t.links.size() - 1, end);
  }
  if (!extra_ports.empty()) {  // multi-homed hosts: a NIC port (a host node of its own) per further link
    const std::uint32_t file_hosts = t.hosts();
    t.port_owner.resize(file_hosts);
    t.ports_of.resize(file_hosts);
    for (std::uint32_t h = 0; h < file_hosts; ++h) {
      t.port_owner[h] = h;
      t.ports_of[h].push_back(h);
    }
    for (const auto& [link, host_node] : extra_ports) {
      const std::uint32_t node = t.nodes++;
      const auto owner = static_cast<std::uint32_t>(t.host_index[host_node]);
      t.switch_index.push_back(-1);
      t.host_index.push_back(static_cast<std::int32_t>(t.host_node.size()));
      t.ports_of[owner].push_back(t.hosts());
      t.port_owner.push_back(owner);
      t.host_node.push_back(node);
      TopoLink& tl = t.links[link];
      (tl.a == host_node ? tl.a : tl.b) = node;
    }
  }
  t.description = fmt::format("{}: {} hosts, {} switches, {} links", path, t.user_hosts(), t.switches(), t.links.size());
  if (!extra_ports.empty())
    t.description += fmt::format(" ({} more host ports: multi-homed hosts)", extra_ports.size());
  return t;
}

void degrade(Topology& t, const Scenario& s) {
  const double fraction = s.number("failures.degraded_fraction");
  if (fraction <= 0) return;
  std::vector<std::uint32_t> candidates;
  for (std::uint32_t i = 0; i < t.links.size(); ++i)
    if (t.is_switch(t.links[i].a) && t.is_switch(t.links[i].b)) candidates.push_back(i);
  const auto count = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(candidates.size())));
  Rng rng(static_cast<std::uint64_t>(s.integer("sim.seed")), 0xFA11);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t j = i + rng.below(candidates.size() - i);
    std::swap(candidates[i], candidates[j]);
    TopoLink& l = t.links[candidates[i]];
    l.scale *= s.number("failures.degraded_factor");
    l.degraded = true;
  }
  t.description += fmt::format("; {} of {} switch links degraded to {}x rate", count, candidates.size(),
                               s.number("failures.degraded_factor"));
}

}  // namespace

Topology build_topology(const Scenario& s) {
  const double rate = s.number("link.rate_gbps");
  const double delay = s.number("link.prop_delay_ns");
  Topology t;
  switch (s.choice<TopologyType>("topology.type")) {
    case TopologyType::fat_tree: t = fat_tree(s, rate, delay); break;
    case TopologyType::leaf_spine: t = leaf_spine(s, rate, delay); break;
    case TopologyType::dragonfly: t = dragonfly(s, rate, delay); break;
    case TopologyType::torus: t = torus(s, rate, delay); break;
    case TopologyType::irregular: t = irregular(s, rate, delay); break;
    case TopologyType::file: t = from_file(s); break;
  }
  if (t.hosts() < 2) throw InputError(fmt::format("{}: needs at least two hosts, has {}", t.description, t.hosts()));
  degrade(t, s);
  return t;
}

}  // namespace netasic
