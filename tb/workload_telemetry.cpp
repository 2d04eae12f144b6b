#include "tb/workload_telemetry.h"

#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"

namespace netasic {

std::vector<std::uint32_t> host_groups(const Topology& t) {
  std::vector<std::uint32_t> group(t.user_hosts());
  for (std::uint32_t h = 0; h < t.user_hosts(); ++h) group[h] = h;
  if (t.group_of.empty()) return group;
  for (const auto& l : t.links) {
    for (auto [host, sw] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
      if (t.host_index[host] < 0 || !t.is_switch(sw)) continue;
      group[static_cast<std::uint32_t>(t.host_index[host])] = t.group_of[static_cast<std::uint32_t>(t.switch_index[sw])];
    }
  }
  return group;
}

namespace {

// The hosts of each group, in host order.
std::vector<std::vector<std::uint32_t>> members(const std::vector<std::uint32_t>& group) {
  std::vector<std::vector<std::uint32_t>> m;
  for (std::uint32_t h = 0; h < group.size(); ++h) {
    if (m.size() <= group[h]) m.resize(group[h] + 1);
    m[group[h]].push_back(h);
  }
  return m;
}

std::uint32_t pick(Rng& rng, const std::vector<std::uint32_t>& v) {
  return v[static_cast<std::size_t>(rng.below(v.size()))];
}

}  // namespace

bool build_pattern_workload(const Scenario& s, const Topology& t, Rng& rng, Workload& w) {
  const auto pattern = s.choice<WorkloadPattern>("workload.pattern");
  if (pattern == WorkloadPattern::none) return false;
  const auto pairs = static_cast<std::uint32_t>(s.integer("workload.pairs"));
  const auto size = static_cast<std::uint64_t>(s.integer("workload.size_bytes"));
  const auto tclass = static_cast<std::uint8_t>(s.integer("workload.traffic_class"));
  const std::vector<std::uint32_t> group = host_groups(t);
  const auto m = members(group);
  if (pattern != WorkloadPattern::unf && t.group_of.empty())
    throw InputError(fmt::format("workload.pattern = {}: needs topology.type dragonfly (groups); unf works on any "
                                 "topology", s.string("workload.pattern")));
  if (m.size() < 2) throw InputError("workload.pattern: the topology has fewer than two groups");
  const std::uint32_t hosts = t.user_hosts();
  const char* name = pattern == WorkloadPattern::unf ? "unf" : pattern == WorkloadPattern::adv1 ? "adv1" : "adv2";
  // ADV1: all traffic from one random group to another; ADV2: from every other group into one.
  const auto g1 = static_cast<std::uint32_t>(rng.below(m.size()));
  auto g2 = static_cast<std::uint32_t>(rng.below(m.size() - 1));
  if (g2 >= g1) ++g2;
  for (std::uint32_t i = 0; i < pairs; ++i) {
    std::uint32_t src = 0, dst = 0;
    if (pattern == WorkloadPattern::unf) {
      // Source uniform over all hosts, destination uniform over the hosts outside the source's group.
      src = static_cast<std::uint32_t>(rng.below(hosts));
      do dst = static_cast<std::uint32_t>(rng.below(hosts));
      while (group[dst] == group[src]);
    } else if (pattern == WorkloadPattern::adv1) {
      src = pick(rng, m[g1]);
      dst = pick(rng, m[g2]);
    } else {
      dst = pick(rng, m[g1]);
      do src = static_cast<std::uint32_t>(rng.below(hosts));
      while (group[src] == g1);
    }
    w.flows.push_back(FlowSpec{src, dst, size, 0, tclass, 4791});
  }
  w.description = fmt::format("pattern {}, {} connections of {} bytes", name, pairs, size);
  return true;
}

}  // namespace netasic
