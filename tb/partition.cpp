#include "tb/partition.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>

#include "tb/output_dir.h"
#include "tb/partition_emulation.h"
#include "tlm/common/error.h"

namespace netasic {

const char* to_string(PartitionRule r) {
  switch (r) {
    case PartitionRule::automatic: return "auto";
    case PartitionRule::pod: return "pod";
    case PartitionRule::group: return "group";
    case PartitionRule::contiguous: return "contiguous";
  }
  return "?";
}

namespace {

// Unit u of `units` (in order) goes to rank u * ranks / units: contiguous blocks whose sizes differ by one.
std::uint32_t block(std::uint64_t u, std::uint64_t units, std::uint32_t ranks) {
  return static_cast<std::uint32_t>(u * ranks / units);
}

void need_units(std::uint32_t ranks, std::uint64_t units, const char* what, const char* rule) {
  if (units < ranks)
    throw InputError(fmt::format("partition: {} ranks but the fabric has {} {}: rule {} gives every rank at least "
                                 "one; use fewer ranks",
                                 ranks, units, what, rule));
}

// Per switch index: its rank.
std::vector<std::uint32_t> switch_ranks(const Topology& t, std::uint32_t ranks, PartitionRule rule) {
  const std::uint32_t n = t.switches();
  std::vector<std::uint32_t> rank(n, 0);
  if (rule == PartitionRule::pod) {
    std::int32_t pods = 0;
    for (std::int32_t p : t.pod_of) pods = std::max(pods, p + 1);
    need_units(ranks, static_cast<std::uint64_t>(pods), "pods", "pod");
    std::uint32_t between = 0, spread = 0;
    for (std::int32_t p : t.pod_of) between += p < 0;
    for (std::uint32_t sw = 0; sw < n; ++sw) {
      const std::int32_t p = t.pod_of[sw];
      rank[sw] = p >= 0 ? block(static_cast<std::uint64_t>(p), static_cast<std::uint64_t>(pods), ranks)
                        : block(spread++, between, ranks);
    }
  } else if (rule == PartitionRule::group) {
    std::uint32_t groups = 0;
    for (std::uint32_t g : t.group_of) groups = std::max(groups, g + 1);
    need_units(ranks, groups, "groups", "group");
    for (std::uint32_t sw = 0; sw < n; ++sw) rank[sw] = block(t.group_of[sw], groups, ranks);
  } else {
    need_units(ranks, n, "switches", "contiguous");
    std::vector<std::uint64_t> weight(n, 1);
    for (const TopoLink& l : t.links) {
      if (t.is_switch(l.a) != t.is_switch(l.b))
        ++weight[static_cast<std::uint32_t>(t.switch_index[t.is_switch(l.a) ? l.a : l.b])];
    }
    std::uint64_t total = 0;
    for (std::uint64_t w : weight) total += w;
    // Blocks of about total / ranks weight each, in index order; a rank moves on early when only as many
    // switches remain as ranks still to fill, so every rank gets one.
    std::uint32_t r = 0, in_rank = 0;
    std::uint64_t before = 0;
    for (std::uint32_t sw = 0; sw < n; ++sw) {
      const bool must = in_rank > 0 && n - sw <= ranks - 1 - r;
      const bool past = in_rank > 0 && r + 1 < ranks && (2 * before + weight[sw]) * ranks > 2 * (r + 1) * total;
      if (must || past) {
        ++r;
        in_rank = 0;
      }
      rank[sw] = r;
      ++in_rank;
      before += weight[sw];
    }
  }
  return rank;
}

}  // namespace

Partition partition_fabric(const Topology& t, std::uint32_t ranks, PartitionRule rule, double min_frame_bytes) {
  if (ranks < 1) throw InputError("partition: --ranks must be at least 1");
  if (rule == PartitionRule::automatic)
    rule = !t.pod_of.empty()     ? PartitionRule::pod
           : !t.group_of.empty() ? PartitionRule::group
                                 : PartitionRule::contiguous;
  if (rule == PartitionRule::pod && t.pod_of.empty())
    throw InputError(fmt::format("partition: rule pod needs a fat tree or a leaf-spine, not '{}'; use group (dragonfly) "
                                 "or contiguous",
                                 t.description));
  if (rule == PartitionRule::group && t.group_of.empty())
    throw InputError(fmt::format("partition: rule group needs a dragonfly, not '{}'; use pod (fat tree, leaf-spine) "
                                 "or contiguous",
                                 t.description));
  Partition p;
  p.ranks = ranks;
  p.rule = rule;
  const std::vector<std::uint32_t> sw_rank = ranks == 1 ? std::vector<std::uint32_t>(t.switches(), 0)
                                                        : switch_ranks(t, ranks, rule);
  p.rank_of.assign(t.nodes, 0);
  std::vector<bool> placed(t.nodes, false);
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw) {
    p.rank_of[t.switch_node[sw]] = sw_rank[sw];
    placed[t.switch_node[sw]] = true;
  }
  // A host lives with the switch of its first link (a host with no switch link stays on rank 0).
  for (const TopoLink& l : t.links)
    for (const auto& [host, other] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
      if (!t.is_switch(host) && t.is_switch(other) && !placed[host]) {
        p.rank_of[host] = p.rank_of[other];
        placed[host] = true;
      }
  p.load.assign(ranks, RankLoad{});
  for (std::uint32_t n = 0; n < t.nodes; ++n) {
    RankLoad& r = p.load[p.rank_of[n]];
    (t.is_switch(n) ? r.switches : r.hosts) += 1;
  }
  double min_delay = std::numeric_limits<double>::infinity(), lookahead = min_delay;
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    const TopoLink& l = t.links[i];
    const std::uint32_t ra = p.rank_of[l.a], rb = p.rank_of[l.b];
    if (ra == rb) {
      ++p.load[ra].links;
      continue;
    }
    p.cut.push_back(i);
    ++p.load[ra].cut_links;
    ++p.load[rb].cut_links;
    min_delay = std::min(min_delay, l.delay_ns);
    lookahead = std::min(lookahead, l.delay_ns + min_frame_bytes * 8.0 / (l.rate_gbps * l.scale));
  }
  if (!p.cut.empty()) {
    p.min_cut_delay_ns = min_delay;
    p.lookahead_ns = lookahead;
  }
  return p;
}

namespace {

PartitionRule parse_rule(const std::string& by) {
  if (by == "auto") return PartitionRule::automatic;
  if (by == "pod") return PartitionRule::pod;
  if (by == "group") return PartitionRule::group;
  if (by == "contiguous") return PartitionRule::contiguous;
  throw InputError(fmt::format("partition: --by '{}': accepted auto, pod, group, contiguous", by));
}

// Node names as export-topology writes them: h<host>, s<switch>.
std::string node_name(const Topology& t, std::uint32_t n) {
  return t.is_switch(n) ? fmt::format("s{}", t.switch_index[n]) : fmt::format("h{}", t.host_index[n]);
}

}  // namespace

int partition_command(const std::string& scenario_path, const std::vector<std::string>& sets, std::uint32_t ranks,
                      const std::string& by, const std::string& json_path) {
  const PartitionRule rule = parse_rule(by);
  Scenario s;
  if (!scenario_path.empty()) s.load_yaml_file(scenario_path);
  for (const auto& a : sets) s.set_assignment(a);
  const Topology t = build_topology(s);
  // The smallest frame a link carries: an ACK (nic.ack_bytes, flowcut.ack_bytes) or a 64-byte control frame,
  // plus the per-packet wire overhead.
  const double min_frame = static_cast<double>(std::min<std::int64_t>(
                               {s.integer("nic.ack_bytes"), s.integer("flowcut.ack_bytes"), 64})) +
                           static_cast<double>(s.integer("link.overhead_bytes"));
  const Partition p = partition_fabric(t, ranks, rule, min_frame);
  std::cout << fmt::format("partition: {}\n", t.description);
  std::cout << fmt::format("partition: {} ranks, rule {}; {} of {} links cut", p.ranks, to_string(p.rule), p.cut.size(),
                           t.links.size());
  if (!p.cut.empty())
    std::cout << fmt::format("; lookahead {:.3f} ns (smallest cut-link delay {:.3f} ns plus {:.0f} B at that link's "
                             "rate)",
                             p.lookahead_ns, p.min_cut_delay_ns, min_frame);
  // What a run uses (the causal order's window): a credit return crosses a link in its propagation delay alone.
  const double window_ns = ps_to_ns(causal_window_ps(t));
  std::cout << fmt::format("\npartition: a run's window {:.3f} ns (the smallest propagation delay any partition can "
                           "cut, so the same for every rank count)",
                           window_ns);
  std::cout << "\n\n| rank | hosts | switches | links inside | cut links |\n|---:|---:|---:|---:|---:|\n";
  for (std::uint32_t r = 0; r < p.ranks; ++r)
    std::cout << fmt::format("| {} | {} | {} | {} | {} |\n", r, p.load[r].hosts, p.load[r].switches, p.load[r].links,
                             p.load[r].cut_links);
  if (json_path.empty()) return 0;
  nlohmann::json j;
  j["topology"] = t.description;
  j["ranks"] = p.ranks;
  j["rule"] = to_string(p.rule);
  j["lookahead_ns"] = p.lookahead_ns;
  j["min_cut_delay_ns"] = p.min_cut_delay_ns;
  j["min_frame_bytes"] = min_frame;
  j["window_ns"] = window_ns;
  nlohmann::json ranks_j = nlohmann::json::array();
  for (const RankLoad& r : p.load)
    ranks_j.push_back({{"hosts", r.hosts}, {"switches", r.switches}, {"links", r.links}, {"cut_links", r.cut_links}});
  j["per_rank"] = ranks_j;
  nlohmann::json nodes = nlohmann::json::object();
  for (std::uint32_t n = 0; n < t.nodes; ++n) nodes[node_name(t, n)] = p.rank_of[n];
  j["rank_of"] = nodes;
  nlohmann::json cut = nlohmann::json::array();
  for (std::uint32_t i : p.cut) cut.push_back({node_name(t, t.links[i].a), node_name(t, t.links[i].b)});
  j["cut_links"] = cut;
  write_file(json_path, [&](std::ostream& f) { f << j.dump(1) << "\n"; });  // whole or not at all
  return 0;
}

}  // namespace netasic
