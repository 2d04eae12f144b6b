#include "tb/workload_collective.h"

#include <fmt/format.h>

#include <algorithm>

#include "tb/scenario.h"
#include "tb/topology.h"
#include "tb/workload.h"
#include "tlm/common/error.h"

namespace netasic {

const char* to_string(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_to_all: return "all_to_all";
    case CollectiveOp::broadcast: return "broadcast";
  }
  return "?";
}

const char* to_string(CollectiveAlgorithm a) {
  return a == CollectiveAlgorithm::ring ? "ring" : "halving_doubling";
}

namespace {

struct Send {
  std::uint32_t src, dst;  // ranks
  std::uint64_t bytes;
};
using Steps = std::vector<std::vector<Send>>;

// Ring: every rank sends to the next. All-reduce is a reduce-scatter then an all-gather, 2(N-1) steps of
// S/N; all-to-all sends S/N to the rank k ahead at step k; broadcast pipelines N chunks of S/N down the chain
// from rank 0.
Steps ring(CollectiveOp op, std::uint32_t n, std::uint64_t s) {
  const std::uint64_t chunk = (s + n - 1) / n;
  Steps steps;
  if (op == CollectiveOp::broadcast) {
    for (std::uint32_t j = 0; j < 2 * n - 2; ++j) {  // step j: chunk c crosses hop h = j - c
      std::vector<Send> step;
      for (std::uint32_t h = 0; h + 1 < n; ++h)
        if (j >= h && j - h < n) step.push_back(Send{h, h + 1, chunk});
      steps.push_back(step);
    }
    return steps;
  }
  const std::uint32_t count = op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
  for (std::uint32_t k = 0; k < count; ++k) {
    std::vector<Send> step;
    const std::uint32_t ahead = op == CollectiveOp::all_to_all ? k + 1 : 1;
    for (std::uint32_t r = 0; r < n; ++r) step.push_back(Send{r, (r + ahead) % n, chunk});
    steps.push_back(step);
  }
  return steps;
}

// Halving-doubling (N a power of two): reduce-scatter by recursive halving (partner r ^ N/2^(k+1), S/2^(k+1)
// bytes), all-gather by recursive doubling (partner r ^ 2^k, 2^k S/N bytes), all-reduce both; broadcast is the
// binomial tree from rank 0 (at step k, ranks below 2^k send S to rank + 2^k).
Steps halving_doubling(CollectiveOp op, std::uint32_t n, std::uint64_t s) {
  std::uint32_t log = 0;
  while ((1u << log) < n) ++log;
  Steps steps;
  auto exchange = [&](std::uint32_t distance, std::uint64_t bytes) {
    std::vector<Send> step;
    for (std::uint32_t r = 0; r < n; ++r) step.push_back(Send{r, r ^ distance, std::max<std::uint64_t>(1, bytes)});
    steps.push_back(step);
  };
  if (op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_reduce)
    for (std::uint32_t k = 0; k < log; ++k) exchange(n >> (k + 1), s >> (k + 1));
  if (op == CollectiveOp::all_gather || op == CollectiveOp::all_reduce)
    for (std::uint32_t k = 0; k < log; ++k) exchange(1u << k, (s / n) << k);
  if (op == CollectiveOp::broadcast) {
    for (std::uint32_t k = 0; k < log; ++k) {
      std::vector<Send> step;
      for (std::uint32_t r = 0; r < (1u << k); ++r) step.push_back(Send{r, r + (1u << k), s});
      steps.push_back(step);
    }
  }
  return steps;
}

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
  c.bytes = static_cast<std::uint64_t>(s.integer("workload.size_bytes"));
  c.iterations = static_cast<std::uint32_t>(s.integer("workload.collective.iterations"));
  c.gap = static_cast<Ps>(s.number("workload.collective.gap_us") * kPsPerUs + 0.5);
  add_collective(std::move(c), "workload.collective", static_cast<std::uint8_t>(s.integer("workload.traffic_class")), w);
}

void add_collective(Collective c, const std::string& what, std::uint8_t tclass, Workload& w) {
  const auto n = static_cast<std::uint32_t>(c.hosts.size());
  if (n < 2) throw InputError(fmt::format("{}: a collective needs at least 2 hosts", what));
  if (c.bytes < n)
    throw InputError(fmt::format("{}: {} bytes on {} hosts; a collective needs at least one byte per host", what,
                                 c.bytes, n));
  Steps steps;
  if (c.algorithm == CollectiveAlgorithm::ring) {
    steps = ring(c.op, n, c.bytes);
  } else {
    if (n & (n - 1))
      throw InputError(fmt::format("{}: halving_doubling needs a power-of-two number of hosts; {} take part", what, n));
    if (c.op == CollectiveOp::all_to_all)
      throw InputError(fmt::format("{}: all_to_all runs with ring (a shift per step); halving_doubling is for "
                                   "all_reduce, reduce_scatter, all_gather and broadcast",
                                   what));
    steps = halving_doubling(c.op, n, c.bytes);
  }
  // Dependencies: a rank's send waits for what it received at its latest earlier step with receives (the
  // data it forwards or reduces), or, a rank that never receives (a broadcast's root), for its own sends of
  // its latest earlier step with sends. Across iterations the same rule holds, plus the compute gap.
  c.first_flow = static_cast<std::uint32_t>(w.flows.size());
  std::vector<std::vector<std::uint32_t>> last_recv(n), last_send(n);
  std::vector<std::uint32_t> iteration_of;  // per flow of this collective
  w.gap.resize(w.flows.size(), 0);
  for (std::uint32_t it = 0; it < c.iterations; ++it) {
    for (std::uint32_t k = 0; k < steps.size(); ++k) {
      std::vector<std::vector<std::uint32_t>> recv(n), sent(n);
      for (const Send& x : steps[k]) {
        const auto id = static_cast<std::uint32_t>(w.flows.size());
        const auto& before = !last_recv[x.src].empty() ? last_recv[x.src] : last_send[x.src];
        Ps gap = 0;
        for (std::uint32_t b : before) {
          w.deps.emplace_back(b, id);
          if (iteration_of[b - c.first_flow] != it) gap = c.gap;
        }
        // The first step's flows start with the collective; the others when released.
        w.flows.push_back(FlowSpec{c.hosts[x.src], c.hosts[x.dst], x.bytes, c.start, tclass, 4791});
        w.gap.push_back(gap);
        iteration_of.push_back(it);
        c.steps.push_back({it, k, x.src, x.dst});
        recv[x.dst].push_back(id);
        sent[x.src].push_back(id);
      }
      for (std::uint32_t r = 0; r < n; ++r) {
        if (!recv[r].empty()) last_recv[r] = recv[r];
        if (!sent[r].empty()) last_send[r] = sent[r];
      }
    }
  }
  if (!w.description.empty()) w.description += "; ";
  w.description += fmt::format("{}{} ({}) of {} B on {} hosts, {} iteration{}: {} steps, {} flows",
                               c.name.empty() ? "collective " : c.name + ": ", to_string(c.op), to_string(c.algorithm),
                               c.bytes, n, c.iterations, c.iterations == 1 ? "" : "s", steps.size(), c.steps.size());
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
