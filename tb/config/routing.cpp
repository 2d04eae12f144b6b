// Builders for the topology's ports and the routing state (tb/config/builders.h).
#include <fmt/format.h>

#include "tb/choices.h"
#include "tb/config/builders.h"
#include "tlm/common/error.h"

namespace netasic {

NodePorts build_ports(const Topology& t) {
  NodePorts ports(t.nodes);
  for (std::uint32_t i = 0; i < t.links.size(); ++i) {
    ports[t.links[i].a].push_back(PortRef{i, true});
    ports[t.links[i].b].push_back(PortRef{i, false});
  }
  return ports;
}

std::unique_ptr<RoutingTable> build_routing_table(const Scenario& s, const Topology& t, const NodePorts& ports) {
  auto peer_of = [&](const PortRef& r) { return r.forward ? t.links[r.link].b : t.links[r.link].a; };
  std::vector<std::vector<std::uint32_t>> port_peer(t.switches());
  for (std::uint32_t sw = 0; sw < t.switches(); ++sw) {
    for (const PortRef& r : ports[t.switch_node[sw]]) {
      const std::uint32_t peer = peer_of(r);
      port_peer[sw].push_back(t.is_switch(peer) ? static_cast<std::uint32_t>(t.switch_index[peer]) : RoutingTable::kHost);
    }
  }
  std::vector<std::uint32_t> host_switch(t.hosts());
  std::vector<std::uint16_t> host_port(t.hosts());
  for (std::uint32_t h = 0; h < t.hosts(); ++h) {
    const std::uint32_t node = t.host_node[h];
    if (ports[node].size() != 1)
      throw InputError(fmt::format("{}: host node {} has {} links; a host has exactly one", t.description, node,
                                   ports[node].size()));
    const std::uint32_t sw_node = peer_of(ports[node][0]);
    if (!t.is_switch(sw_node)) throw InputError(fmt::format("host node {} is linked to host node {}", node, sw_node));
    host_switch[h] = static_cast<std::uint32_t>(t.switch_index[sw_node]);
    const auto& sp = ports[sw_node];
    for (std::uint16_t p = 0; p < sp.size(); ++p)
      if (sp[p].link == ports[node][0].link) host_port[h] = p;
  }
  auto routing = std::make_unique<RoutingTable>(std::move(port_peer), std::move(host_switch), std::move(host_port),
                                                t.group_of);
  routing->check_connected();
  const auto updown = s.choice<UpDownMode>("routing.up_down");
  // Torus and irregular networks have cycles minimal routing could deadlock on.
  const bool updown_by_default = t.type == TopologyType::torus || t.type == TopologyType::irregular;
  if (updown == UpDownMode::on || (updown == UpDownMode::automatic && updown_by_default)) {
    if (!t.group_of.empty())
      throw InputError("routing.up_down = on: a dragonfly routes through its groups (set routing.up_down: auto or off)");
    routing->enable_up_down();
  }
  return routing;
}

RoutingPolicy build_routing_policy(const Scenario& s, const Topology& t) {
  const auto policy = s.choice<RoutingPolicy>("routing.policy");
  const bool dragonfly_policy =
      policy == RoutingPolicy::minimal || policy == RoutingPolicy::valiant || policy == RoutingPolicy::ugal;
  if (dragonfly_policy && t.group_of.empty())
    throw InputError(fmt::format("routing.policy = {} needs topology.type dragonfly (accepted here: ecmp, spray, adaptive, flowcut, letflow)",
                                 routing_policy_name(policy)));
  return policy;
}

std::uint8_t virtual_channels(const Topology& t, RoutingPolicy policy) {
  if (t.group_of.empty()) return 2;
  return (policy == RoutingPolicy::valiant || policy == RoutingPolicy::ugal || policy == RoutingPolicy::telemetry) ? 4 : 3;
}

}  // namespace netasic
