#include "tb/collective_algorithms.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

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
  switch (a) {
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::halving_doubling: return "halving_doubling";
    case CollectiveAlgorithm::tree: return "tree";
    case CollectiveAlgorithm::hierarchical: return "hierarchical";
  }
  return "?";
}

namespace {

using Plan = std::vector<CollectiveSend>;

void add(Plan& plan, std::uint32_t step, std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
  plan.push_back(CollectiveSend{step, src, dst, std::max<std::uint64_t>(1, bytes), {}, false});
}

// Ring: every rank sends to the next. All-reduce is a reduce-scatter then an all-gather, 2(N-1) steps of
// S/N; all-to-all sends S/N to the rank k ahead at step k; broadcast pipelines N chunks of S/N down the chain
// from rank 0.
Plan ring(CollectiveOp op, std::uint32_t n, std::uint64_t s) {
  const std::uint64_t chunk = (s + n - 1) / n;
  Plan plan;
  if (op == CollectiveOp::broadcast) {
    for (std::uint32_t j = 0; j < 2 * n - 2; ++j)  // step j: chunk c crosses hop h = j - c
      for (std::uint32_t h = 0; h + 1 < n; ++h)
        if (j >= h && j - h < n) add(plan, j, h, h + 1, chunk);
    return plan;
  }
  const std::uint32_t count = op == CollectiveOp::all_reduce ? 2 * (n - 1) : n - 1;
  for (std::uint32_t k = 0; k < count; ++k) {
    const std::uint32_t ahead = op == CollectiveOp::all_to_all ? k + 1 : 1;
    for (std::uint32_t r = 0; r < n; ++r) add(plan, k, r, (r + ahead) % n, chunk);
  }
  return plan;
}

// Halving-doubling (N a power of two): reduce-scatter by recursive halving (partner r ^ N/2^(k+1), S/2^(k+1)
// bytes), all-gather by recursive doubling (partner r ^ 2^k, 2^k S/N bytes), all-reduce both; broadcast is the
// binomial tree from rank 0 (at step k, ranks below 2^k send S to rank + 2^k).
Plan halving_doubling(CollectiveOp op, std::uint32_t n, std::uint64_t s, const std::string& what) {
  if (n & (n - 1))
    throw InputError(fmt::format("{}: halving_doubling needs a power-of-two number of hosts; {} take part", what, n));
  if (op == CollectiveOp::all_to_all)
    throw InputError(fmt::format("{}: all_to_all runs with ring (a shift per step); halving_doubling is for "
                                 "all_reduce, reduce_scatter, all_gather and broadcast",
                                 what));
  std::uint32_t log = 0;
  while ((1u << log) < n) ++log;
  Plan plan;
  std::uint32_t step = 0;
  auto exchange = [&](std::uint32_t distance, std::uint64_t bytes) {
    for (std::uint32_t r = 0; r < n; ++r) add(plan, step, r, r ^ distance, bytes);
    ++step;
  };
  if (op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_reduce)
    for (std::uint32_t k = 0; k < log; ++k) exchange(n >> (k + 1), s >> (k + 1));
  if (op == CollectiveOp::all_gather || op == CollectiveOp::all_reduce)
    for (std::uint32_t k = 0; k < log; ++k) exchange(1u << k, (s / n) << k);
  if (op == CollectiveOp::broadcast)
    for (std::uint32_t k = 0; k < log; ++k, ++step)
      for (std::uint32_t r = 0; r < (1u << k); ++r) add(plan, step, r, r + (1u << k), s);
  return plan;
}

std::uint32_t depth(std::uint32_t position) {  // in a binary heap: 0 for the root
  std::uint32_t d = 0;
  while (position > 0) position = (position - 1) / 2, ++d;
  return d;
}

// One binary tree in heap order (position p's children are 2p+1 and 2p+2; rank_at maps positions to ranks)
// carrying `bytes` in chunks, at most two chunks in flight per link (a chunk waits for the delivery of the
// chunk two before it on the same link). All-reduce: each chunk is reduced up the tree (a rank sends it to
// its parent once its children's copies arrived) and broadcast back down from the root; broadcast: only the
// way down.
void binary_tree(Plan& plan, CollectiveOp op, std::uint32_t n, std::uint64_t bytes, std::uint64_t chunk_bytes,
                 const std::vector<std::uint32_t>& rank_at) {
  const std::uint64_t chunks =
      std::min<std::uint64_t>(bytes, chunk_bytes ? std::max<std::uint64_t>(1, (bytes + chunk_bytes - 1) / chunk_bytes) : 1);
  const std::uint32_t deepest = depth(n - 1);
  const bool reduce = op == CollectiveOp::all_reduce;
  constexpr std::uint32_t kNone = ~0u;
  std::vector<std::vector<std::uint32_t>> up(n, std::vector<std::uint32_t>(chunks, kNone)), down = up;
  auto send = [&](std::uint32_t step, std::uint32_t from, std::uint32_t to, std::uint64_t c,
                  std::initializer_list<std::uint32_t> needs) {
    CollectiveSend x{step, rank_at[from], rank_at[to], bytes / chunks + (c < bytes % chunks), {}, true};
    for (std::uint32_t i : needs)
      if (i != kNone) x.needs.push_back(i);
    plan.push_back(std::move(x));
    return static_cast<std::uint32_t>(plan.size() - 1);
  };
  auto child = [&](const std::vector<std::vector<std::uint32_t>>& sends, std::uint32_t q, std::uint64_t c) {
    return q < n ? sends[q][c] : kNone;
  };
  for (std::uint64_t c = 0; c < chunks; ++c) {
    const auto ci = static_cast<std::uint32_t>(c);
    if (reduce)
      for (std::uint32_t p = n - 1; p >= 1; --p)
        up[p][c] = send(deepest - depth(p) + ci, p, (p - 1) / 2, c,
                        {child(up, 2 * p + 1, c), child(up, 2 * p + 2, c), c >= 2 ? up[p][c - 2] : kNone});
    for (std::uint32_t q = 1; q < n; ++q) {
      const std::uint32_t p = (q - 1) / 2;
      const std::uint32_t step = (reduce ? deepest : 0) + depth(p) + ci;
      const std::uint32_t prev = c >= 2 ? down[q][c - 2] : kNone;
      down[q][c] = p == 0 ? send(step, p, q, c, {reduce ? child(up, 1, c) : kNone, reduce ? child(up, 2, c) : kNone, prev})
                          : send(step, p, q, c, {down[p][c], prev});
    }
  }
}

// Tree: all-reduce over two binary trees (NCCL's double binary tree), each carrying half of S: the second is
// the first mirrored (rank N-1-p at position p), so a rank is an inner node of at most one of them.
// Broadcast: one binary tree from rank 0 carrying S.
Plan tree(CollectiveOp op, std::uint32_t n, std::uint64_t s, std::uint64_t chunk_bytes, const std::string& what) {
  if (op != CollectiveOp::all_reduce && op != CollectiveOp::broadcast)
    throw InputError(fmt::format("{}: tree runs all_reduce and broadcast; {} runs with ring, halving_doubling or "
                                 "hierarchical",
                                 what, to_string(op)));
  Plan plan;
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  if (op == CollectiveOp::broadcast) {
    binary_tree(plan, op, n, s, chunk_bytes, order);
  } else {
    binary_tree(plan, op, n, s - s / 2, chunk_bytes, order);
    std::reverse(order.begin(), order.end());
    binary_tree(plan, op, n, s / 2, chunk_bytes, order);
  }
  // Step order, needs renumbered.
  std::vector<std::uint32_t> by_step(plan.size()), position(plan.size());
  std::iota(by_step.begin(), by_step.end(), 0u);
  std::stable_sort(by_step.begin(), by_step.end(), [&](auto a, auto b) { return plan[a].step < plan[b].step; });
  for (std::uint32_t i = 0; i < by_step.size(); ++i) position[by_step[i]] = i;
  Plan sorted;
  for (std::uint32_t i : by_step) {
    sorted.push_back(plan[i]);
    for (std::uint32_t& need : sorted.back().needs) need = position[need];
  }
  return sorted;
}

// Hierarchical: ring within each rack and across racks between the ranks of the same place in their rack.
// All-reduce: a reduce-scatter in the rack (G-1 steps of S/G), an all-reduce of each rank's S/G across the R
// racks (2(R-1) steps of S/(GR)), an all-gather in the rack (G-1 steps of S/G); reduce-scatter is the first
// two phases (the cross-rack one a reduce-scatter), all-gather the cross-rack all-gather then the rack's.
Plan hierarchical(CollectiveOp op, std::uint64_t s, const std::vector<std::uint32_t>& racks, const std::string& what) {
  if (op == CollectiveOp::all_to_all || op == CollectiveOp::broadcast)
    throw InputError(fmt::format("{}: hierarchical runs all_reduce, reduce_scatter and all_gather; {} runs with "
                                 "ring, halving_doubling or tree",
                                 what, to_string(op)));
  std::vector<std::vector<std::uint32_t>> groups;  // ranks per rack, racks in order of their first rank
  std::map<std::uint32_t, std::size_t> group_of;
  for (std::uint32_t r = 0; r < racks.size(); ++r) {
    const auto [it, added] = group_of.emplace(racks[r], groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(r);
  }
  for (const auto& g : groups)
    if (g.size() != groups[0].size())
      throw InputError(fmt::format("{}: hierarchical needs the same number of ranks in every rack; rank {} has {} in "
                                   "its rack, rank {} has {}",
                                   what, groups[0][0], groups[0].size(), g[0], g.size()));
  const auto g_size = static_cast<std::uint32_t>(groups[0].size());
  const auto r_count = static_cast<std::uint32_t>(groups.size());
  const std::uint64_t in_rack = (s + g_size - 1) / g_size, across = (s + g_size * r_count - 1) / (g_size * r_count);
  Plan plan;
  std::uint32_t step = 0;
  auto phase = [&](std::uint32_t steps, bool within) {
    for (std::uint32_t k = 0; k < steps; ++k, ++step)
      for (std::uint32_t g = 0; g < r_count; ++g)
        for (std::uint32_t i = 0; i < g_size; ++i)
          add(plan, step, groups[g][i], within ? groups[g][(i + 1) % g_size] : groups[(g + 1) % r_count][i],
              within ? in_rack : across);
  };
  if (op != CollectiveOp::all_gather) phase(g_size - 1, true);
  phase(op == CollectiveOp::all_reduce ? 2 * (r_count - 1) : r_count - 1, false);
  if (op != CollectiveOp::reduce_scatter) phase(g_size - 1, true);
  return plan;
}

}  // namespace

std::vector<CollectiveSend> collective_plan(CollectiveOp op, CollectiveAlgorithm a, std::uint64_t bytes,
                                            const std::vector<std::uint32_t>& racks, std::uint64_t chunk_bytes,
                                            const std::string& what) {
  const auto n = static_cast<std::uint32_t>(racks.size());
  switch (a) {
    case CollectiveAlgorithm::ring: return ring(op, n, bytes);
    case CollectiveAlgorithm::halving_doubling: return halving_doubling(op, n, bytes, what);
    case CollectiveAlgorithm::tree: return tree(op, n, bytes, chunk_bytes, what);
    case CollectiveAlgorithm::hierarchical: return hierarchical(op, bytes, racks, what);
  }
  return {};
}

}  // namespace netasic
