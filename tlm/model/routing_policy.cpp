#include "tlm/model/routing_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "tlm/blocks/telemetry_path.h"
#include "tlm/common/log_histogram.h"
#include "tlm/common/error.h"
#include "tlm/model/flowcut_engine.h"

namespace netasic {

std::uint16_t RoutingContext::least_loaded(const std::uint16_t* ports, std::uint32_t n) const {
  std::uint16_t best = ports[0];
  std::uint64_t best_load = load(best);
  std::uint32_t ties = 1;
  for (std::uint32_t k = 1; k < n; ++k) {
    const std::uint64_t l = load(ports[k]);
    if (l < best_load) {
      best = ports[k];
      best_load = l;
      ties = 1;
    } else if (l == best_load && rng->below(++ties) == 0) {
      best = ports[k];
    }
  }
  return best;
}

bool RoutingContext::note_path(std::uint32_t flow, std::uint16_t o) const {
  Flow& f = (*flows)[flow];
  const bool changed = f.last_port >= 0 && f.last_port != o;
  if (changed) ++f.path_changes;
  f.last_port = o;
  return changed;
}

namespace {

// ECMP: a hash of the flow key over the equal-cost next hops; never reorders a flow.
class EcmpRouting : public RoutingFunction {
 public:
  EcmpRouting(const RoutingContext& c, const RoutingPolicySettings&) : RoutingFunction(c, true) {}
  std::uint16_t choose(Packet* p, const std::uint16_t* ports, std::uint32_t n) override {
    return ctx_.hash_pick(ports, n, p);
  }
};

// Per-packet uniform random next hop among the equal-cost ones.
class SprayRouting : public RoutingFunction {
 public:
  SprayRouting(const RoutingContext& c, const RoutingPolicySettings&) : RoutingFunction(c, false) {}
  std::uint16_t choose(Packet*, const std::uint16_t* ports, std::uint32_t n) override {
    return n == 1 ? ports[0] : ports[ctx_.rng->below(n)];
  }
};

// Per-packet least-loaded next hop (the local output backlog).
class AdaptiveRouting : public RoutingFunction {
 public:
  AdaptiveRouting(const RoutingContext& c, const RoutingPolicySettings&) : RoutingFunction(c, false) {}
  std::uint16_t choose(Packet*, const std::uint16_t* ports, std::uint32_t n) override {
    return n == 1 ? ports[0] : ctx_.least_loaded(ports, n);
  }
};

// Dragonfly minimal path: the hash among the equal-cost candidates toward the destination group.
class MinimalRouting : public EcmpRouting {
 public:
  using EcmpRouting::EcmpRouting;
};

// Dragonfly non-minimal routing (Kim et al., "Technology-Driven, Highly-Scalable Dragonfly Topology"):
// decided once, at the source switch, for a packet bound to another group when a third group exists.
class DragonflySourceRouting : public RoutingFunction {
 public:
  DragonflySourceRouting(const RoutingContext& c, bool hash_only) : RoutingFunction(c, hash_only) {}

 protected:
  // True when p is at its source switch and may take a detour; then `g` is a random intermediate group
  // (neither the source's nor the destination's) and `dst_group` the destination's.
  bool detour_group(const Packet* p, std::uint32_t& g, std::uint32_t& dst_group) const {
    const RoutingTable& rt = *ctx_.routing;
    if (!rt.has_groups() || rt.groups() <= 2 || p->global_hops != 0) return false;
    const std::uint32_t my_group = rt.group_of(ctx_.switch_id);
    dst_group = rt.group_of(rt.host_switch(p->dst_host));
    if (my_group == dst_group || !ctx_.at_ingress(p)) return false;
    g = static_cast<std::uint32_t>(ctx_.rng->below(rt.groups() - 2));
    for (std::uint32_t skip : {std::min(my_group, dst_group), std::max(my_group, dst_group)})
      if (g >= skip) ++g;
    return true;
  }
  // Takes the detour through g: the candidates become the next hops toward g.
  const std::uint16_t* via(Packet* p, std::uint32_t g, std::uint32_t& n) const {
    p->via_group = g;
    const std::uint16_t* c = ctx_.routing->next_hops_to_group(ctx_.switch_id, g, n);
    if (n == 0) throw ModelError(fmt::format("switch {}: no route toward group {}", ctx_.switch_id, g));
    return c;
  }
};

// Valiant: always via a random intermediate group, then minimal (hash) on each leg.
class ValiantRouting : public DragonflySourceRouting {
 public:
  ValiantRouting(const RoutingContext& c, const RoutingPolicySettings&) : DragonflySourceRouting(c, false) {}
  std::uint16_t choose(Packet* p, const std::uint16_t* ports, std::uint32_t n) override {
    std::uint32_t g = 0, dst_group = 0;
    if (detour_group(p, g, dst_group)) ports = via(p, g, n);
    return ctx_.hash_pick(ports, n, p);
  }
};

// UGAL-L: minimal or Valiant, chosen at the source switch from local backlog weighted by hop count; then
// the least-loaded candidate at every hop.
class UgalRouting : public DragonflySourceRouting {
 public:
  UgalRouting(const RoutingContext& c, const RoutingPolicySettings& s)
      : DragonflySourceRouting(c, false), bias_(s.ugal_bias_bytes) {}
  std::uint16_t choose(Packet* p, const std::uint16_t* ports, std::uint32_t n) override {
    std::uint32_t g = 0, dst_group = 0;
    if (detour_group(p, g, dst_group)) {
      const RoutingTable& rt = *ctx_.routing;
      const std::uint32_t s = ctx_.switch_id;
      std::uint32_t nm = 0, nv = 0;
      const std::uint16_t* cm = rt.next_hops_to_group(s, dst_group, nm);
      const std::uint16_t* cv = rt.next_hops_to_group(s, g, nv);
      const std::uint16_t pm = ctx_.least_loaded(cm, nm);
      const std::uint16_t pv = ctx_.least_loaded(cv, nv);
      // Hops to the destination group, and via g (to g, then at most local + global into the destination).
      const double hm = rt.distance_to_group(s, dst_group);
      const double hv = rt.distance_to_group(s, g) + 2.0;
      if (static_cast<double>(ctx_.load(pm)) * hm > static_cast<double>(ctx_.load(pv)) * hv + bias_)
        ports = via(p, g, n);
    }
    return ctx_.least_loaded(ports, n);
  }

 private:
  double bias_;
};

// Telemetry routing (Mizrahi et al., Section III): the source NIC encodes the path in the UDP source port.
// The NIC already hashed the rewritten 5-tuple into flow_hash, so every hop's pick among the shortest next
// hops follows the port; with the most significant bit set, the source switch sends the packet via the
// intermediate group the port's 15 bits hash to. Data packets and PTMs come here; ACKs and PTRs take the
// flow's hash path back.
class TelemetryRouting : public DragonflySourceRouting {
 public:
  TelemetryRouting(const RoutingContext& c, const RoutingPolicySettings&) : DragonflySourceRouting(c, false) {}
  std::uint16_t choose(Packet* p, const std::uint16_t* ports, std::uint32_t n) override {
    std::uint32_t g = 0, dst_group = 0;
    if (port_is_non_shortest(p->key.src_port) && detour_group(p, g, dst_group)) {
      const RoutingTable& rt = *ctx_.routing;
      ports = via(p, intermediate_group(p->key.src_port, rt.groups(), rt.group_of(ctx_.switch_id), dst_group), n);
    }
    return ctx_.hash_pick(ports, n, p);
  }
};

// LetFlow (Vanini et al., "Let It Flow"): a new flowlet takes a uniformly random next hop.
class LetflowRouting : public RoutingFunction {
 public:
  LetflowRouting(const RoutingContext& c, const RoutingPolicySettings& s)
      : RoutingFunction(c, false), table_config_(s.letflow_table), delta_ps_(s.letflow_delta_ps) {
    // A co-simulated table is built with the switch, i.e. while SystemC elaborates (the SystemC-output
    // adapter needs that); it reports like the model's once its first flowlet arrives.
    if (s.letflow_factory) table_ = s.letflow_factory(table_config_, s.owner);
  }
  std::uint16_t choose(Packet* p, const std::uint16_t* ports, std::uint32_t n) override {
    if (n == 1) return ports[0];
    if (!table_) table_ = std::make_unique<FlowletTable>(table_config_);
    const std::uint64_t sweeps = ctx_.now() / delta_ps_;
    const FlowletResult r = table_->access_at_sweep(WideKey::from_flow(p->key), n, *ctx_.rng, sweeps);
    occupancy_time_.at(ctx_.now(), table_->occupancy(), ctx_.fabric->stats_window());
    // Colliding flows share an entry, and their candidate lists may differ in length.
    const std::uint16_t o = ports[r.port % n];
    if (r.new_flowlet && ctx_.flows && ctx_.at_ingress(p)) ctx_.note_path(p->flow, o);
    return o;
  }
  const FlowletTableIf* flowlet_table() const override { return table_.get(); }
  // The letflow section (every switch with the policy, with a table or not) and the switch's flowlet table.
  void report(Report& r) const override {
    ReportSection& s = r.open("letflow");
    s.sum("flowlets", table_ ? table_->flowlets() : 0);
    s.sum("collisions", table_ ? table_->collisions() : 0);
    s.max("table_high_water", std::uint64_t{table_ ? table_->high_water() : 0});
    if (!table_ || table_->flowlets() == 0) return;
    const FlowletTableIf& t = *table_;
    // Occupancy over time, as seen at each lookup (an idle table's entries expire unseen until the next).
    const LogHistogram occ = occupancy_time_.until(r.end_ps(), ctx_.fabric->stats_window());
    s.max("table_occupancy/mean", occ.mean());
    for (const auto& [name, q] : kOccupancyQuantiles) s.max(std::string("table_occupancy/") + name, occ.quantile(q));
    r.table("flowlet").push_back({{"owner", r.component()}, {"capacity", t.config().entries},
                                  {"high_water", t.high_water()}, {"flowlets", t.flowlets()},
                                  {"collisions", t.collisions()}, {"bits_per_entry", t.entry_bits()},
                                  {"total_bits", t.storage_bits()}, {"occupancy_over_time", occupancy_json(occ)}});
  }

 private:
  FlowletTableConfig table_config_;
  Ps delta_ps_;
  std::unique_ptr<FlowletTableIf> table_;  // the model's is built at the first flowlet (a switch that never sees one has none)
  TimeWeighted occupancy_time_;             // ps at each occupancy
};

// Flowcut switching: the switch's Flowcut engine decides for the packets its table tracks; the others
// (and every packet when the state lives in the NICs) take the hash.
class FlowcutRouting : public RoutingFunction {
 public:
  FlowcutRouting(const RoutingContext& c, const RoutingPolicySettings& s) : RoutingFunction(c, false), engine_(s.flowcut) {}
  std::uint16_t choose(Packet* p, const std::uint16_t* ports, std::uint32_t n) override {
    if (engine_ && engine_->tracks(p)) return engine_->route(p, ports, n);
    return ctx_.hash_pick(ports, n, p);
  }

 private:
  FlowcutEngine* engine_;
};

template <class T>
std::unique_ptr<RoutingFunction> make(const RoutingContext& c, const RoutingPolicySettings& s) {
  return std::make_unique<T>(c, s);
}

struct Registered {
  RoutingPolicy policy;
  const char* name;  // the scenario's routing.policy
  std::unique_ptr<RoutingFunction> (*make)(const RoutingContext&, const RoutingPolicySettings&);
};

const Registered kRegistry[] = {
    {RoutingPolicy::ecmp, "ecmp", &make<EcmpRouting>},
    {RoutingPolicy::spray, "spray", &make<SprayRouting>},
    {RoutingPolicy::adaptive, "adaptive", &make<AdaptiveRouting>},
    {RoutingPolicy::minimal, "minimal", &make<MinimalRouting>},
    {RoutingPolicy::valiant, "valiant", &make<ValiantRouting>},
    {RoutingPolicy::ugal, "ugal", &make<UgalRouting>},
    {RoutingPolicy::flowcut, "flowcut", &make<FlowcutRouting>},
    {RoutingPolicy::letflow, "letflow", &make<LetflowRouting>},
    {RoutingPolicy::telemetry, "telemetry", &make<TelemetryRouting>},
};

const Registered* find(RoutingPolicy p) {
  for (const Registered& r : kRegistry)
    if (r.policy == p) return &r;
  return nullptr;
}

}  // namespace

std::unique_ptr<RoutingFunction> make_routing_function(RoutingPolicy p, const RoutingContext& ctx,
                                                       const RoutingPolicySettings& settings) {
  const Registered* r = find(p);
  if (!r) throw InputError(fmt::format("routing policy #{} has no implementation", static_cast<int>(p)));
  return r->make(ctx, settings);
}

RoutingPolicy parse_routing_policy(const std::string& name) {
  for (const Registered& r : kRegistry)
    if (name == r.name) return r.policy;
  throw InputError(fmt::format("unknown routing policy '{}': accepted {}", name, fmt::join(routing_policy_names(), ", ")));
}

const char* routing_policy_name(RoutingPolicy p) {
  const Registered* r = find(p);
  return r ? r->name : "unknown";
}

std::vector<std::pair<const char*, RoutingPolicy>> routing_policy_choices() {
  std::vector<std::pair<const char*, RoutingPolicy>> choices;
  for (const Registered& r : kRegistry) choices.emplace_back(r.name, r.policy);
  return choices;
}

std::vector<std::string> routing_policy_names() {
  std::vector<std::string> names;
  for (const Registered& r : kRegistry) names.emplace_back(r.name);
  return names;
}

}  // namespace netasic
