#include "tb/workload_collective.h"

#include <fmt/format.h>

#include <algorithm>

#include "tb/scenario.h"
#include "tb/topology.h"
#include "tb/workload.h"
#include "tlm/common/error.h"

namespace netasic {

std::vector<std::uint32_t> rack_of(const Topology& t) {
  std::vector<std::uint32_t> rack(t.user_hosts(), 0);
  std::vector<char> seen(t.user_hosts(), 0);
  for (const TopoLink& l : t.links)
    for (const auto& [h, sw] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
      if (!t.is_switch(h) && t.is_switch(sw)) {
        const std::uint32_t host = t.owner(static_cast<std::uint32_t>(t.host_index[h]));
        if (!seen[host]++) rack[host] = static_cast<std::uint32_t>(t.switch_index[sw]);
      }
  return rack;
}

namespace {

std::vector<std::uint32_t> participants(const Scenario& s, const Topology& t) {
  std::vector<std::uint32_t> hosts;
  const auto first = static_cast<std::uint32_t>(s.integer("workload.collective.first_hosts"));
  const auto& list = s.list("workload.collective.hosts");
  if (first > 0 && !list.empty())
    throw InputError(fmt::format("workload.collective.hosts ({}) and workload.collective.first_hosts ({}) both "
                                 "choose the hosts; set one",
                                 s.origin("workload.collective.hosts"), s.origin("workload.collective.first_hosts")));
  if (first > t.user_hosts())
    throw InputError(fmt::format("workload.collective.first_hosts = {}: the topology has {} hosts", first, t.user_hosts()));
  if (!list.empty()) {
    std::vector<char> seen(t.user_hosts(), 0);
    for (const std::string& item : list) {
      if (!is_plain_decimal(item, false) || item[0] == '-' || item[0] == '+' || item.size() > 10 ||
          std::stoull(item) >= t.user_hosts())
        throw InputError(fmt::format("workload.collective.hosts: {} is not a host id (0..{}) (set by {})", item,
                                     t.user_hosts() - 1, s.origin("workload.collective.hosts")));
      const auto h = static_cast<std::uint32_t>(std::stoull(item));
      if (seen[h]++) throw InputError(fmt::format("workload.collective.hosts: host {} is listed twice", h));
      hosts.push_back(h);
    }
  } else {
    for (std::uint32_t h = 0; h < (first ? first : t.user_hosts()); ++h) hosts.push_back(h);
  }
  return hosts;
}

}  // namespace

void build_collective(const Scenario& s, const Topology& t, Workload& w) {
  Collective c;
  c.op = s.choice<CollectiveOp>("workload.collective.op");
  c.algorithm = s.choice<CollectiveAlgorithm>("workload.collective.algorithm");
  c.hosts = participants(s, t);
  const std::vector<std::uint32_t> rack = rack_of(t);
  for (std::uint32_t h : c.hosts) c.racks.push_back(rack[h]);
  c.chunk_bytes = static_cast<std::uint64_t>(s.integer("workload.collective.chunk_bytes"));
  c.bytes = static_cast<std::uint64_t>(s.integer("workload.size_bytes"));
  c.iterations = static_cast<std::uint32_t>(s.integer("workload.collective.iterations"));
  c.gap = static_cast<Ps>(s.number("workload.collective.gap_us") * kPsPerUs + 0.5);
  add_collective(std::move(c), "workload.collective", static_cast<std::uint8_t>(s.integer("workload.traffic_class")), w);
}

namespace {
// The end of a step: what each rank received and sent in it becomes its latest.
void commit_step(std::vector<std::vector<std::uint32_t>>& recv, std::vector<std::vector<std::uint32_t>>& sent,
                 std::vector<std::vector<std::uint32_t>>& last_recv, std::vector<std::vector<std::uint32_t>>& last_send) {
  for (std::size_t r = 0; r < recv.size(); ++r) {
    if (!recv[r].empty()) last_recv[r] = std::move(recv[r]);
    if (!sent[r].empty()) last_send[r] = std::move(sent[r]);
    recv[r].clear();
    sent[r].clear();
  }
}
}  // namespace

void add_collective(Collective c, const std::string& what, std::uint8_t tclass, Workload& w) {
  const auto n = static_cast<std::uint32_t>(c.hosts.size());
  if (n < 2) throw InputError(fmt::format("{}: a collective needs at least 2 hosts", what));
  if (c.bytes < n)
    throw InputError(fmt::format("{}: {} bytes on {} hosts; a collective needs at least one byte per host", what,
                                 c.bytes, n));
  if (c.racks.size() != n) c.racks.assign(n, 0);
  const std::vector<CollectiveSend> plan = collective_plan(c.op, c.algorithm, c.bytes, c.racks, c.chunk_bytes, what);
  // Dependencies (CollectiveSend): explicit ones within the iteration, or the step rule. Across iterations a
  // rank's first sends wait for its last deliveries of the previous iteration, plus the compute gap.
  c.first_flow = static_cast<std::uint32_t>(w.flows.size());
  std::vector<std::vector<std::uint32_t>> last_recv(n), last_send(n);
  w.gap.resize(w.flows.size(), 0);
  for (std::uint32_t it = 0; it < c.iterations; ++it) {
    const auto base = static_cast<std::uint32_t>(w.flows.size());
    const std::vector<std::vector<std::uint32_t>> previous_recv = last_recv, previous_send = last_send;
    std::vector<std::vector<std::uint32_t>> recv(n), sent(n);
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const CollectiveSend& x = plan[i];
      if (i > 0 && plan[i - 1].step != x.step) commit_step(recv, sent, last_recv, last_send);
      const auto id = static_cast<std::uint32_t>(w.flows.size());
      Ps gap = 0;
      if (x.explicit_needs && !x.needs.empty()) {
        for (std::uint32_t need : x.needs) w.deps.emplace_back(base + need, id);
      } else {
        const auto& received = x.explicit_needs ? previous_recv : last_recv;
        const auto& own = x.explicit_needs ? previous_send : last_send;
        for (std::uint32_t b : !received[x.src].empty() ? received[x.src] : own[x.src]) {
          w.deps.emplace_back(b, id);
          if (b < base) gap = c.gap;
        }
      }
      // The first step's flows start with the collective; the others when released.
      w.flows.push_back(FlowSpec{c.hosts[x.src], c.hosts[x.dst], x.bytes, c.start, tclass, 4791});
      w.gap.push_back(gap);
      c.steps.push_back({it, x.step, x.src, x.dst});
      recv[x.dst].push_back(id);
      sent[x.src].push_back(id);
    }
    commit_step(recv, sent, last_recv, last_send);
  }
  const std::uint32_t steps = plan.empty() ? 0 : plan.back().step + 1;
  if (!w.description.empty()) w.description += "; ";
  w.description += fmt::format("{}{} ({}) of {} B on {} hosts, {} iteration{}: {} steps, {} flows",
                               c.name.empty() ? "collective " : c.name + ": ", to_string(c.op), to_string(c.algorithm),
                               c.bytes, n, c.iterations, c.iterations == 1 ? "" : "s", steps, c.steps.size());
  w.collectives.push_back(std::move(c));
}

namespace {
// NCCL's bus bandwidth factor: the bytes each rank's link carries per byte of the message, relative to an
// ideal point-to-point copy (nccl-tests, doc/PERFORMANCE.md).
double bus_factor(CollectiveOp op, double n) {
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (n - 1) / n;
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::all_to_all: return (n - 1) / n;
    case CollectiveOp::broadcast: return 1;
  }
  return 1;
}
}  // namespace

nlohmann::json collective_summary(const std::vector<Collective>& collectives, const FlowTable& flows) {
  nlohmann::json list = nlohmann::json::array();
  for (const Collective& c : collectives) {
    std::vector<Ps> begin(c.iterations, kNever), end(c.iterations, 0);
    bool complete = true;
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
      const Flow& f = flows.flows()[c.first_flow + i];
      const std::uint32_t it = c.steps[i][0];
      if (!f.done()) {
        complete = false;
        continue;
      }
      begin[it] = std::min(begin[it], f.start);
      end[it] = std::max(end[it], f.finish);
    }
    nlohmann::json j;
    if (!c.name.empty()) j["job"] = c.name;
    j["start_ns"] = ps_to_ns(c.start);
    j["op"] = to_string(c.op);
    j["algorithm"] = to_string(c.algorithm);
    j["hosts"] = c.hosts.size();
    j["bytes"] = c.bytes;
    j["iterations"] = c.iterations;
    j["complete"] = complete;
    nlohmann::json iters = nlohmann::json::array();
    double sum_ns = 0;
    for (std::uint32_t it = 0; it < c.iterations && complete; ++it) {
      // An iteration runs from its first flow's start (after the previous one's compute gap) to its last
      // flow's delivery.
      const double ns = ps_to_ns(end[it] - begin[it]);
      iters.push_back(ns);
      sum_ns += ns;
    }
    j["completion_ns"] = complete ? ps_to_ns(end.back()) - ps_to_ns(begin.front()) : 0.0;
    j["iteration_ns"] = iters;
    const double mean_ns = complete && c.iterations ? sum_ns / c.iterations : 0;
    const double algbw = mean_ns > 0 ? static_cast<double>(c.bytes) * 8 / mean_ns : 0;  // bits per ns = Gb/s
    j["algbw_gbps"] = algbw;
    j["busbw_gbps"] = algbw * bus_factor(c.op, static_cast<double>(c.hosts.size()));
    list.push_back(j);
  }
  return list;
}

void write_collective_steps(std::ostream& out, const std::vector<Collective>& collectives, const FlowTable& flows,
                            const Topology& t) {
  out << "collective,iteration,step,src_rank,dst_rank,flow,src_host,dst_host,bytes,start_ns,finish_ns\n";
  for (std::size_t ci = 0; ci < collectives.size(); ++ci) {
    const Collective& c = collectives[ci];
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
      const Flow& f = flows.flows()[c.first_flow + i];
      const auto& st = c.steps[i];
      const std::string start = f.start == kNever ? "" : fmt::format("{:.3f}", ps_to_ns(f.start));
      const std::string finish = f.done() ? fmt::format("{:.3f}", ps_to_ns(f.finish)) : "";
      out << fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", ci, st[0], st[1], st[2], st[3], f.id, t.owner(f.src), t.owner(f.dst),
                         f.size_bytes, start, finish);
    }
  }
}

}  // namespace netasic
