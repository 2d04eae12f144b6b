// Topologies: generated (fat tree, leaf-spine, dragonfly) or read from an HPCC ns-3 topology file, plus
// the seeded choice of degraded links. Nodes are numbered hosts first where the topology is generated;
// a file keeps its own node ids (hosts are the nodes not listed as switches).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tb/choices.h"
#include "tb/scenario.h"

namespace netasic {

struct TopoLink {
  std::uint32_t a = 0, b = 0;  // node ids
  double rate_gbps = 0;
  double delay_ns = 0;
  double error_rate = 0;
  double scale = 1.0;  // < 1: degraded link
  bool degraded = false;
};

struct Topology {
  TopologyType type = TopologyType::fat_tree;  // the generator that built it (topology.type)
  std::string description;
  std::uint32_t nodes = 0;
  std::vector<std::int32_t> switch_index;  // per node: switch index or -1
  std::vector<std::int32_t> host_index;    // per node: host index or -1
  std::vector<std::uint32_t> host_node;    // per host: node id
  std::vector<std::uint32_t> switch_node;  // per switch: node id
  std::vector<TopoLink> links;
  std::vector<std::uint32_t> group_of;  // dragonfly: group per switch index (empty otherwise)
  // Fat tree: the pod of each edge and aggregation switch; leaf-spine: each leaf's index. -1 for the switches
  // between pods (cores, spines). Empty for the other topologies.
  std::vector<std::int32_t> pod_of;
  // Multi-homed hosts (a file's host with several links): each link is a port with a NIC of its own, so the
  // model's hosts are NIC ports. A host keeps its index for its first link; each further link is a port
  // appended after the file's hosts. port_owner[i]: the file host that NIC i belongs to; ports_of[h]: host h's
  // NICs, first link first. Both empty when every host has one link.
  std::vector<std::uint32_t> port_owner;
  std::vector<std::vector<std::uint32_t>> ports_of;

  std::uint32_t hosts() const { return static_cast<std::uint32_t>(host_node.size()); }  // NICs
  // The hosts a workload addresses (a multi-homed host once), and the host a NIC belongs to.
  std::uint32_t user_hosts() const { return ports_of.empty() ? hosts() : static_cast<std::uint32_t>(ports_of.size()); }
  std::uint32_t owner(std::uint32_t nic) const { return port_owner.empty() ? nic : port_owner[nic]; }
  std::uint32_t switches() const { return static_cast<std::uint32_t>(switch_node.size()); }
  bool is_switch(std::uint32_t node) const { return switch_index[node] >= 0; }
};

// Builds the topology the scenario describes (InputError on impossible parameters) and applies
// failures.degraded_fraction with a stream derived from sim.seed.
Topology build_topology(const Scenario& s);

}  // namespace netasic
