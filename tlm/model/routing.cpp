#include "tlm/model/routing.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>

#include "tlm/common/error.h"

namespace netasic {

namespace {
// Breadth-first distances over the switch graph from the switches already in `frontier` (their distance
// set to 0 in `d`); unreached switches keep kUnreachable.
void bfs(const std::vector<std::vector<std::uint32_t>>& port_peer, std::uint16_t* d, std::vector<std::uint32_t>& frontier) {
  const auto n = static_cast<std::uint32_t>(port_peer.size());
  for (std::size_t head = 0; head < frontier.size(); ++head) {
    const std::uint32_t u = frontier[head];
    for (std::uint32_t v : port_peer[u]) {
      if (v >= n || d[v] != RoutingTable::kUnreachable) continue;
      d[v] = static_cast<std::uint16_t>(d[u] + 1);
      frontier.push_back(v);
    }
  }
}
}  // namespace

RoutingTable::RoutingTable(std::vector<std::vector<std::uint32_t>> port_peer, std::vector<std::uint32_t> host_switch,
                           std::vector<std::uint16_t> host_port, std::vector<std::uint32_t> group_of)
    : port_peer_(std::move(port_peer)),
      host_switch_(std::move(host_switch)),
      host_port_(std::move(host_port)),
      group_of_(std::move(group_of)),
      n_(static_cast<std::uint32_t>(port_peer_.size())) {
  std::vector<std::uint16_t> from = distances_by_source();
  if (from.empty() && n_ > 0) {  // more than 64 levels across: one BFS per switch
    dist_ = distances_by_bfs();
    from = transposed(dist_, n_);
  } else {
    dist_ = transposed(from, n_);
  }
  build_next_hops(from);
  if (!group_of_.empty()) build_group_routes();
}

// An n x n table with rows and columns swapped (by source <-> by destination), in tiles that stay in cache.
std::vector<std::uint16_t> RoutingTable::transposed(const std::vector<std::uint16_t>& a, std::uint32_t n) {
  std::vector<std::uint16_t> b(a.size());
  constexpr std::uint32_t kTile = 64;
  for (std::uint32_t r0 = 0; r0 < n; r0 += kTile)
    for (std::uint32_t c0 = 0; c0 < n; c0 += kTile)
      for (std::uint32_t r = r0; r < std::min(n, r0 + kTile); ++r)
        for (std::uint32_t c = c0; c < std::min(n, c0 + kTile); ++c)
          b[std::size_t{c} * n + r] = a[std::size_t{r} * n + c];
  return b;
}

// Every switch's distance to every other, as from[v * n + t] = distance(v, t): the length of the shortest
// path from t to v along the ports' links (one BFS from each t, the switch graph's links being cables used
// both ways). All n searches run at once, one bit per source: reach[v] holds the sources whose search has
// come to v, and each level ORs every switch's set into its peers'. A level costs a pass over the links of
// n/64 words each, against a pass over the links for each BFS, so the sets are faster while the graph's
// diameter is under 64 levels (a fat tree's is 4); on a wider one (a long ring) it returns an empty table,
// and the BFSs run instead.
std::vector<std::uint16_t> RoutingTable::distances_by_source() const {
  const std::size_t n = n_, words = (n + 63) / 64;
  std::vector<std::uint16_t> from(n * n, kUnreachable);
  std::vector<std::uint64_t> reach(n * words, 0), next;
  for (std::size_t v = 0; v < n; ++v) {
    reach[v * words + v / 64] = std::uint64_t{1} << (v % 64);
    from[v * n + v] = 0;
  }
  constexpr std::uint16_t kMaxLevels = 64;
  for (std::uint16_t level = 1;; ++level) {
    if (level > kMaxLevels) return {};
    next = reach;
    for (std::size_t u = 0; u < n; ++u) {
      const std::uint64_t* ru = &reach[u * words];
      for (std::uint32_t v : port_peer_[u]) {
        if (v >= n) continue;
        std::uint64_t* rv = &next[std::size_t{v} * words];
        for (std::size_t w = 0; w < words; ++w) rv[w] |= ru[w];
      }
    }
    bool grew = false;
    for (std::size_t v = 0; v < n; ++v) {
      std::uint16_t* row = &from[v * n];
      for (std::size_t w = 0; w < words; ++w) {
        for (std::uint64_t fresh = next[v * words + w] & ~reach[v * words + w]; fresh; fresh &= fresh - 1) {
          row[w * 64 + static_cast<std::size_t>(__builtin_ctzll(fresh))] = level;
          grew = true;
        }
      }
    }
    if (!grew) return from;
    reach.swap(next);
  }
}

// The distances by destination (dist_'s layout), one BFS per switch.
std::vector<std::uint16_t> RoutingTable::distances_by_bfs() const {
  std::vector<std::uint16_t> by_destination(std::size_t{n_} * n_, kUnreachable);
  std::vector<std::uint32_t> frontier;
  frontier.reserve(n_);
  for (std::uint32_t t = 0; t < n_; ++t) {
    std::uint16_t* d = &by_destination[std::size_t{t} * n_];
    frontier.assign(1, t);
    d[t] = 0;
    bfs(port_peer_, d, frontier);
  }
  return by_destination;
}

void RoutingTable::build_next_hops(const std::vector<std::uint16_t>& from) {
  // Next hops: ports of s whose peer is one step closer to t. A switch has few distinct lists (on a fat
  // tree, its up ports serve every destination outside its subtree), so each list is stored once and the
  // per-destination entries name it: the lists stay in cache and a route reads one entry.
  // Columns: the switches hosts attach to first, in the order of their first host, then the others.
  constexpr std::uint32_t kNoColumn = 0xffffffffu;
  col_of_.assign(n_, kNoColumn);
  std::uint32_t cols = 0;
  for (std::uint32_t sw : host_switch_)
    if (sw < n_ && col_of_[sw] == kNoColumn) col_of_[sw] = cols++;
  for (std::uint32_t t = 0; t < n_; ++t)
    if (col_of_[t] == kNoColumn) col_of_[t] = cols++;
  host_at_.resize(host_switch_.size());
  for (std::size_t h = 0; h < host_switch_.size(); ++h)
    host_at_[h] = HostAt{host_switch_[h], host_switch_[h] < n_ ? col_of_[host_switch_[h]] : kNoColumn, host_port_[h]};
  nh_entry_.assign(std::size_t{n_} * n_, 0);
  // Switch s's lists toward every t at once, as bit masks of its ports (radix/64 words per destination):
  // port p leads to v, and p is a next hop toward t when v is one step closer, read from the distances by
  // source (from[v * n + t]) that a switch's ports stream through in order. Walking the table by
  // destination instead, a column of it per list, was 18% of building a 27,648-host fabric.
  std::size_t words = 1;
  for (const auto& peers : port_peer_) words = std::max(words, (peers.size() + 63) / 64);
  std::vector<std::uint64_t> mask(std::size_t{n_} * words);
  std::unordered_map<std::string, std::uint32_t> seen;  // a list's mask words, as bytes -> its offset
  std::string key;
  for (std::uint32_t s = 0; s < n_; ++s) {
    std::fill(mask.begin(), mask.end(), 0);
    const std::uint16_t* ds = &from[std::size_t{s} * n_];
    for (std::size_t p = 0; p < port_peer_[s].size(); ++p) {
      const std::uint32_t v = port_peer_[s][p];
      if (v >= n_) continue;
      const std::uint16_t* dv = &from[std::size_t{v} * n_];
      std::uint64_t* m = &mask[p / 64];
      const std::uint32_t bit = p % 64;
      // An unreachable v (0xffff) wraps to 0 here, which only s itself is at: s == t is skipped below.
      if (words == 1) {  // radix up to 64: contiguous masks, a loop the compiler vectorizes
        for (std::uint32_t t = 0; t < n_; ++t)
          m[t] |= std::uint64_t{static_cast<std::uint16_t>(dv[t] + 1) == ds[t]} << bit;
      } else {
        for (std::uint32_t t = 0; t < n_; ++t)
          m[t * words] |= std::uint64_t{static_cast<std::uint16_t>(dv[t] + 1) == ds[t]} << bit;
      }
    }
    seen.clear();
    // Destinations in a row mostly share a list (those of one pod, on a fat tree): the last one's is tried
    // before the hash map.
    const std::uint64_t* last = nullptr;
    std::uint32_t last_entry = 0;
    for (std::uint32_t t = 0; t < n_; ++t) {
      if (s == t || ds[t] == kUnreachable) continue;
      const std::uint64_t* m = &mask[std::size_t{t} * words];
      if (last && std::equal(m, m + words, last)) {
        nh_entry_[std::size_t{s} * n_ + col_of_[t]] = last_entry;
        continue;
      }
      std::size_t count = 0;
      for (std::size_t w = 0; w < words; ++w) count += static_cast<std::size_t>(__builtin_popcountll(m[w]));
      if (count > kMaxNextHops)
        throw InputError(fmt::format("routing: switch {} has {} equal-cost next hops toward switch {}; at most {}", s,
                                     count, t, kMaxNextHops));
      key.assign(reinterpret_cast<const char*>(m), words * sizeof(std::uint64_t));
      auto [it, added] = seen.try_emplace(key, static_cast<std::uint32_t>(nh_ports_.size()));
      if (added) {
        if (nh_ports_.size() + count > kNhMaxOffset)
          throw InputError(fmt::format("routing: more than {} distinct next-hop entries", kNhMaxOffset));
        for (std::size_t w = 0; w < words; ++w)
          for (std::uint64_t b = m[w]; b; b &= b - 1)
            nh_ports_.push_back(static_cast<std::uint16_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(b))));
      }
      last = m;
      last_entry = it->second << kNhCountBits | static_cast<std::uint32_t>(count);
      nh_entry_[std::size_t{s} * n_ + col_of_[t]] = last_entry;
    }
  }
}

void RoutingTable::build_group_routes() {
  for (std::uint32_t g : group_of_) groups_ = std::max(groups_, g + 1);
  gdist_.assign(std::size_t{groups_} * n_, kUnreachable);
  std::vector<std::uint32_t> frontier;
  for (std::uint32_t g = 0; g < groups_; ++g) {
    std::uint16_t* d = &gdist_[std::size_t{g} * n_];
    frontier.clear();
    for (std::uint32_t s = 0; s < n_; ++s)
      if (group_of_[s] == g) {
        d[s] = 0;
        frontier.push_back(s);
      }
    bfs(port_peer_, d, frontier);
  }
  // Next hops toward group g by the canonical dragonfly route: a global link straight into g, else a
  // local hop to a switch of the same group that has one (never through a third group).
  std::vector<std::uint8_t> links_to(std::size_t{n_} * groups_, 0);  // switch s has a global link into g
  for (std::uint32_t s = 0; s < n_; ++s)
    for (std::uint32_t v : port_peer_[s])
      if (v < n_ && group_of_[v] != group_of_[s]) links_to[std::size_t{s} * groups_ + group_of_[v]] = 1;
  gnh_offset_.assign(std::size_t{n_} * groups_ + 1, 0);
  for (std::uint32_t s = 0; s < n_; ++s) {
    for (std::uint32_t g = 0; g < groups_; ++g) {
      const std::size_t k = std::size_t{s} * groups_ + g;
      gnh_offset_[k] = static_cast<std::uint32_t>(gnh_ports_.size());
      if (group_of_[s] == g) continue;
      const bool direct = links_to[std::size_t{s} * groups_ + g];
      for (std::size_t p = 0; p < port_peer_[s].size(); ++p) {
        const std::uint32_t v = port_peer_[s][p];
        if (v >= n_) continue;
        const bool ok = direct ? group_of_[v] == g
                               : group_of_[v] == group_of_[s] && links_to[std::size_t{v} * groups_ + g];
        if (ok) gnh_ports_.push_back(static_cast<std::uint16_t>(p));
      }
      // Hops to reach g this way: 1 with a direct link, 2 through a neighbour, more only if neither exists.
      if (gnh_offset_[k] != gnh_ports_.size()) gdist_[std::size_t{g} * n_ + s] = direct ? 1 : 2;
    }
  }
  gnh_offset_.back() = static_cast<std::uint32_t>(gnh_ports_.size());
}

bool RoutingTable::is_global_port(std::uint32_t s, std::uint16_t port) const {
  if (group_of_.empty()) return false;
  const std::uint32_t v = port_peer_[s][port];
  return v < n_ && group_of_[v] != group_of_[s];
}

void RoutingTable::enable_up_down() {
  up_level_.assign(n_, kUnreachable);
  std::vector<std::uint32_t> frontier{0};
  up_level_[0] = 0;
  for (std::size_t head = 0; head < frontier.size(); ++head)
    for (std::uint32_t v : port_peer_[frontier[head]])
      if (v < n_ && up_level_[v] == kUnreachable) {
        up_level_[v] = up_level_[frontier[head]] + 1;
        frontier.push_back(v);
      }
  // Per destination t: down-only distances (a Bellman-Ford style relaxation over down links: the down
  // graph is acyclic, so n rounds suffice), then up-then-down distances.
  ud_down_.assign(std::size_t{n_} * n_, kUnreachable);
  ud_any_.assign(std::size_t{n_} * n_, kUnreachable);
  for (std::uint32_t t = 0; t < n_; ++t) {
    std::uint16_t* down = &ud_down_[std::size_t{t} * n_];
    std::uint16_t* any = &ud_any_[std::size_t{t} * n_];
    down[t] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t s = 0; s < n_; ++s)
        for (std::size_t p = 0; p < port_peer_[s].size(); ++p) {
          const std::uint32_t v = port_peer_[s][p];
          if (v >= n_ || is_up(s, static_cast<std::uint16_t>(p)) || down[v] == kUnreachable) continue;
          if (down[v] + 1 < down[s]) {
            down[s] = static_cast<std::uint16_t>(down[v] + 1);
            changed = true;
          }
        }
    }
    for (std::uint32_t s = 0; s < n_; ++s) any[s] = down[s];
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t s = 0; s < n_; ++s)
        for (std::size_t p = 0; p < port_peer_[s].size(); ++p) {
          const std::uint32_t v = port_peer_[s][p];
          if (v >= n_ || !is_up(s, static_cast<std::uint16_t>(p)) || any[v] == kUnreachable) continue;
          if (any[v] + 1 < any[s]) {
            any[s] = static_cast<std::uint16_t>(any[v] + 1);
            changed = true;
          }
        }
    }
  }
  // Candidates: before any down link, an up link that keeps a shortest legal path, or a down link that
  // does; after a down link, down links only.
  ud_offset_.assign(std::size_t{n_} * n_ * 2 + 1, 0);
  ud_ports_.clear();
  for (std::uint32_t s = 0; s < n_; ++s)
    for (std::uint32_t t = 0; t < n_; ++t)
      for (int went_down = 0; went_down < 2; ++went_down) {
        const std::size_t k = (std::size_t{s} * n_ + t) * 2 + went_down;
        ud_offset_[k] = static_cast<std::uint32_t>(ud_ports_.size());
        if (s == t) continue;
        const std::uint16_t* down = &ud_down_[std::size_t{t} * n_];
        const std::uint16_t* any = &ud_any_[std::size_t{t} * n_];
        const std::uint16_t best = went_down ? down[s] : any[s];
        if (best == kUnreachable) continue;
        for (std::size_t p = 0; p < port_peer_[s].size(); ++p) {
          const std::uint32_t v = port_peer_[s][p];
          if (v >= n_) continue;
          const bool up = is_up(s, static_cast<std::uint16_t>(p));
          if (up && !went_down && any[v] != kUnreachable && any[v] + 1 == best) ud_ports_.push_back(static_cast<std::uint16_t>(p));
          if (!up && down[v] != kUnreachable && down[v] + 1 == best) ud_ports_.push_back(static_cast<std::uint16_t>(p));
        }
      }
  ud_offset_.back() = static_cast<std::uint32_t>(ud_ports_.size());
}

void RoutingTable::check_connected() const {
  for (std::uint32_t t = 0; t < n_; ++t)
    for (std::uint32_t s = 0; s < n_; ++s)
      if (distance(s, t) == kUnreachable)
        throw InputError(fmt::format("topology is not connected: switch {} cannot reach switch {}", s, t));
}

}  // namespace netasic
