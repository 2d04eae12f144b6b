// Routing policies as objects created by name from one registry (booksim2's map of routing functions).
//
// The switch computes the candidate output ports of a data packet (minimal next hops, or toward a
// dragonfly group) and asks its policy for one of them; it knows no policy's internals. A policy reads
// what it needs through RoutingContext: an output's load (its backlog), the switch's random stream, the
// routing table, the switch id and hash salt, whether the packet is at its ingress, the flow table (for
// per-flow path-change statistics) and the current time. Non-data packets never reach a policy: they take
// the hash pick, so control traffic keeps one path.
//
// A new policy: one class derived from RoutingFunction and one line in the registry (routing_policy.cpp),
// plus its RoutingPolicy value (the testbench's input to the switch).
#pragma once

#include <cstdint>
#include <memory>

#include "tlm/blocks/flowlet_table.h"
#include "tlm/common/rng.h"
#include "tlm/model/fabric.h"
#include "tlm/model/flow.h"
#include "tlm/model/packet.h"
#include "tlm/model/report.h"
#include "tlm/model/routing.h"

namespace netasic {

class FlowcutEngine;

inline std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// What a policy may read of its switch. Plain data and inline accessors (no virtual calls): the switch
// fills it once; `flows` is set when the testbench hands the flow table over.
struct RoutingContext {
  const RoutingTable* routing = nullptr;
  Rng* rng = nullptr;
  const Fabric* fabric = nullptr;
  FlowTable* flows = nullptr;
  FlowEventObserver* flow_observer = nullptr;  // the packet trace, when it follows flows
  // An output's backlog: the switch's per-output state is an array of `backlog_stride`-byte records.
  const char* backlog_base = nullptr;
  std::size_t backlog_stride = 0;
  std::uint32_t switch_id = 0;
  std::uint32_t hash_salt = 0;

  std::uint64_t load(std::uint16_t o) const {
    return *reinterpret_cast<const std::uint64_t*>(backlog_base + o * backlog_stride);
  }
  Ps now() const { return fabric->now(); }
  bool at_ingress(const Packet* p) const { return routing->peer(switch_id, p->in_port) == RoutingTable::kHost; }
  // The flow's own candidate by its hash (ECMP): the same for every packet of the flow.
  std::uint16_t hash_pick(const std::uint16_t* ports, std::uint32_t n, const Packet* p) const {
    return hash_pick(ports, n, p, hash_salt);
  }
  // The same with the switch's salt given (a switch's prefetch hook keeps it in its hot lines).
  static std::uint16_t hash_pick(const std::uint16_t* ports, std::uint32_t n, const Packet* p, std::uint32_t salt) {
    return n == 1 ? ports[0] : ports[mix32(p->flow_hash ^ salt) % n];
  }
  // Least backlog; ties broken at random so equal ports share load evenly (per-switch stream).
  std::uint16_t least_loaded(const std::uint16_t* ports, std::uint32_t n) const;
  // Per-flow statistics of a path taken at the flow's ingress: true when it differs from the last one.
  bool note_path(std::uint32_t flow, std::uint16_t o) const;
};

struct RoutingPolicySettings {
  double ugal_bias_bytes = 0;           // UGAL: extra backlog the non-minimal path must beat
  FlowletTableConfig letflow_table{};   // LetFlow
  Ps letflow_delta_ps = 50 * kPsPerUs;
  FlowletTableFactory letflow_factory;  // empty: the C++ model (FlowletTable), built at the first flowlet
  const char* owner = "";               // the switch's name
  FlowcutEngine* flowcut = nullptr;     // Flowcut in this switch (null: the NIC-only variant, hash here)
};

class RoutingFunction : public Reporting {
 public:
  static constexpr std::uint16_t kHeld = 0xffff;  // the packet waits (Flowcut overflow = hold)

  RoutingFunction(const RoutingContext& ctx, bool hash_only) : ctx_(ctx), hash_only_(hash_only) {}
  RoutingFunction(const RoutingFunction&) = delete;
  RoutingFunction& operator=(const RoutingFunction&) = delete;

  // The output of data packet p, not addressed to a host of this switch, among the n >= 1 candidates
  // `ports`; or kHeld. May set p->via_group (dragonfly Valiant / UGAL at the source switch).
  virtual std::uint16_t choose(Packet* p, const std::uint16_t* ports, std::uint32_t n) = 0;
  virtual const FlowletTableIf* flowlet_table() const { return nullptr; }
  // The policy's own statistics (a section of summary.json, its tables); most policies keep none. The
  // Flowcut engine, owned by the switch, reports for itself.
  void report(Report&) const override {}

  // The choice is a pure function of the flow hash over the minimal candidates (the arrival prefetch hook
  // can then work it out ahead of the packet).
  bool hash_only() const { return hash_only_; }

 protected:
  const RoutingContext& ctx_;

 private:
  bool hash_only_;
};

// The registry: creates the policy `p` (InputError when it has none).
std::unique_ptr<RoutingFunction> make_routing_function(RoutingPolicy p, const RoutingContext& ctx,
                                                       const RoutingPolicySettings& settings);

}  // namespace netasic
