// Routing state shared by all switches of a fabric: minimal next hops per (switch, destination switch),
// where each host attaches, and (dragonfly) the group structure for Valiant and UGAL.
//
// Built once by the testbench from the topology; read-only while the model runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace netasic {

enum class RoutingPolicy : std::uint8_t {
  ecmp,      // hash of the flow key over the equal-cost next hops: never reorders a flow
  spray,     // per-packet uniform random next hop among the equal-cost ones
  adaptive,  // per-packet least-loaded next hop (local output backlog)
  minimal,   // dragonfly: minimal path (hash among equal-cost candidates)
  valiant,   // dragonfly: via a random intermediate group
  ugal,      // dragonfly: minimal or Valiant, chosen at the source switch from local backlog (UGAL-L)
  flowcut,   // Flowcut switching (flowcut.variant): a flow changes path only with nothing in flight
  letflow,   // LetFlow flowlet switching: a new flowlet takes a uniformly random next hop
  telemetry, // the source NIC picks the path in the UDP source port (Mizrahi et al.): hash, or via a group
};
// The names and the policies behind them are one registry (routing_policy.cpp): a policy is known by name
// exactly when the switch can build it.
RoutingPolicy parse_routing_policy(const std::string& name);  // InputError on unknown names
const char* routing_policy_name(RoutingPolicy p);
std::vector<std::string> routing_policy_names();
// Every registered policy's scenario name and enumerator, in registry order (the routing.policy key's choices).
std::vector<std::pair<const char*, RoutingPolicy>> routing_policy_choices();

class RoutingTable {
 public:
  // Adjacency of the switch graph: for switch s, port p leads to switch neighbor[s][p] (or kHost).
  static constexpr std::uint32_t kHost = 0xfffffffeu;
  static constexpr std::uint32_t kUnconnected = 0xffffffffu;
  static constexpr std::uint16_t kUnreachable = 0xffff;

  // `port_peer[s][p]`: the switch at the other end of port p of switch s, kHost, or kUnconnected.
  // `host_switch[h]`, `host_port[h]`: where host h attaches. `group_of[s]`: dragonfly group (empty if none).
  RoutingTable(std::vector<std::vector<std::uint32_t>> port_peer, std::vector<std::uint32_t> host_switch,
               std::vector<std::uint16_t> host_port, std::vector<std::uint32_t> group_of);

  std::uint32_t switches() const { return static_cast<std::uint32_t>(port_peer_.size()); }
  std::uint32_t hosts() const { return static_cast<std::uint32_t>(host_switch_.size()); }
  std::uint32_t host_switch(std::uint32_t h) const { return host_switch_[h]; }
  std::uint16_t host_port(std::uint32_t h) const { return host_port_[h]; }
  std::uint16_t distance(std::uint32_t from, std::uint32_t to) const { return dist_[std::size_t{to} * n_ + from]; }
  std::uint32_t peer(std::uint32_t s, std::uint16_t port) const { return port_peer_[s][port]; }
  std::uint16_t radix(std::uint32_t s) const { return static_cast<std::uint16_t>(port_peer_[s].size()); }

  // Minimal next-hop ports from switch s toward switch t (s != t). Never empty when t is reachable.
  const std::uint16_t* next_hops(std::uint32_t s, std::uint32_t t, std::uint32_t& count) const {
    return next_hop_list(nh_ports_.data(), next_hop_row(s)[col_of_[t]], count);
  }
  // The same in parts, for a switch's packet path (which keeps the pointers): where host h attaches (switch,
  // port) with its switch's column in the rows; switch s's row (per column, a next-hop list: the offset of its
  // ports in next_hop_ports() and their count, which next_hop_list decodes). The columns of the switches hosts
  // attach to come first, so the part of a row the packet path reads is a fraction of it.
  struct HostAt {
    std::uint32_t sw;
    std::uint32_t col;
    std::uint16_t port;  // host_port
  };
  const HostAt* host_at() const { return host_at_.data(); }
  const std::uint32_t* next_hop_row(std::uint32_t s) const { return &nh_entry_[std::size_t{s} * n_]; }
  const std::uint16_t* next_hop_ports() const { return nh_ports_.data(); }
  static const std::uint16_t* next_hop_list(const std::uint16_t* ports, std::uint32_t e, std::uint32_t& count) {
    count = e & ((1u << kNhCountBits) - 1);
    return ports + (e >> kNhCountBits);
  }
  static constexpr std::uint32_t kMaxNextHops = (1u << 7) - 1;  // ports in one next-hop list
  // Dragonfly.
  bool has_groups() const { return !group_of_.empty(); }
  std::uint32_t groups() const { return groups_; }
  std::uint32_t group_of(std::uint32_t s) const { return group_of_[s]; }
  bool is_global_port(std::uint32_t s, std::uint16_t port) const;
  // Minimal next hops from s toward any switch of group g (s not in g), and the hop count to reach g.
  const std::uint16_t* next_hops_to_group(std::uint32_t s, std::uint32_t g, std::uint32_t& count) const {
    const std::size_t k = std::size_t{s} * groups_ + g;
    count = gnh_offset_[k + 1] - gnh_offset_[k];
    return gnh_ports_.data() + gnh_offset_[k];
  }
  std::uint16_t distance_to_group(std::uint32_t s, std::uint32_t g) const {
    return gdist_[std::size_t{g} * n_ + s];
  }

  // Throws InputError naming a switch pair that cannot reach each other.
  void check_connected() const;

  // Up*/down* routing (Autonet; used on tori and irregular networks, as in Martinez et al.): links are
  // oriented by a BFS tree from switch 0 (up = toward the root: lower level, or the same level and a
  // lower id); a legal path takes zero or more up links, then only down links, which breaks every cycle of
  // channel dependencies. Once enabled, next_hops_updown() gives the minimal legal next hops.
  void enable_up_down();
  bool up_down() const { return !up_level_.empty(); }
  bool is_up(std::uint32_t s, std::uint16_t port) const {
    const std::uint32_t v = port_peer_[s][port];
    return v < n_ && (up_level_[v] < up_level_[s] || (up_level_[v] == up_level_[s] && v < s));
  }
  // Candidates from s toward switch t for a packet that has (went_down) or has not yet taken a down link.
  const std::uint16_t* next_hops_updown(std::uint32_t s, std::uint32_t t, bool went_down, std::uint32_t& count) const {
    const std::size_t k = (std::size_t{s} * n_ + t) * 2 + (went_down ? 1 : 0);
    count = ud_offset_[k + 1] - ud_offset_[k];
    return ud_ports_.data() + ud_offset_[k];
  }
  std::uint16_t distance_updown(std::uint32_t from, std::uint32_t to) const { return ud_any_[std::size_t{to} * n_ + from]; }

 private:
  // Distances as from[v * n + t] = distance(v, t) (the transpose of dist_), all sources at once in bit sets;
  // empty on a graph of more than 64 levels, where distances_by_bfs (dist_'s layout) takes over.
  std::vector<std::uint16_t> distances_by_source() const;
  std::vector<std::uint16_t> distances_by_bfs() const;
  static std::vector<std::uint16_t> transposed(const std::vector<std::uint16_t>& a, std::uint32_t n);
  void build_next_hops(const std::vector<std::uint16_t>& from);  // col_of_, host_at_, nh_entry_, nh_ports_
  void build_group_routes();  // dragonfly: gdist_, gnh_offset_, gnh_ports_
  std::vector<std::vector<std::uint32_t>> port_peer_;
  std::vector<std::uint32_t> host_switch_;
  std::vector<std::uint16_t> host_port_;
  std::vector<std::uint32_t> group_of_;
  std::uint32_t n_ = 0;
  std::uint32_t groups_ = 0;
  std::vector<std::uint16_t> dist_;  // [to * n + from]
  // Per (s, t), at nh_entry_[s * n + col_of_[t]]: the offset of its next-hop list in nh_ports_ (shared by
  // the equal lists of s) and the list's length. A switch has a handful of distinct lists, so they stay in
  // cache and a route reads one 4-byte entry of its row. The columns of the switches hosts attach to come
  // first (col_of_), so the part of the rows the packet path reads is a fraction of the table (at 8,192
  // hosts, 512 of 1,280 columns).
  static constexpr unsigned kNhCountBits = 7;
  static constexpr std::size_t kNhMaxOffset = std::size_t{1} << (32 - kNhCountBits);
  std::vector<std::uint32_t> col_of_;
  std::vector<HostAt> host_at_;
  std::vector<std::uint32_t> nh_entry_;
  std::vector<std::uint16_t> nh_ports_;
  std::vector<std::uint16_t> gdist_;  // [group * n + from]
  std::vector<std::uint32_t> gnh_offset_;
  std::vector<std::uint16_t> gnh_ports_;
  std::vector<std::uint32_t> up_level_;  // BFS level from switch 0 (up*/down*)
  std::vector<std::uint16_t> ud_any_;    // [to * n + from]: shortest legal path, up then down
  std::vector<std::uint16_t> ud_down_;   // [to * n + from]: shortest path using down links only
  std::vector<std::uint32_t> ud_offset_;
  std::vector<std::uint16_t> ud_ports_;
};

}  // namespace netasic
