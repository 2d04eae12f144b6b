// Builders: one per configuration struct of the model. Each reads the Scenario, checks every combination
// of keys it depends on, and throws InputError naming the keys (as `netasic keys` lists them) when the
// combination is invalid, so a user sees the builder's message before any model constructor runs.
// Simulation::elaborate() calls them and wires the components they configure.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tb/scenario.h"
#include "tb/topology.h"
#include "tlm/common/units.h"
#include "tlm/model/egress_fc.h"
#include "tlm/model/flowcut.h"
#include "tlm/model/link.h"
#include "tlm/model/nic.h"
#include "tlm/model/nic_host.h"
#include "tlm/model/routing.h"
#include "tlm/model/switch.h"

namespace netasic {

// One port of a node: the topology link behind it and the link's direction as seen from the node.
struct PortRef {
  std::uint32_t link;  // topology link index
  bool forward;        // this node is the link's `a`
};
using NodePorts = std::vector<std::vector<PortRef>>;  // per node: its ports in topology link order

// --- Topology and routing (tb/config/routing.cpp) ---
NodePorts build_ports(const Topology& t);
// The routing table, with up*/down* enabled as routing.up_down asks (auto: on for torus and irregular).
std::unique_ptr<RoutingTable> build_routing_table(const Scenario& s, const Topology& t, const NodePorts& ports);
// routing.policy, checked against the topology (minimal, valiant and ugal need a dragonfly).
RoutingPolicy build_routing_policy(const Scenario& s, const Topology& t);
// Virtual channels: VC 0 for control, one data VC, plus the dragonfly's escape VCs.
std::uint8_t virtual_channels(const Topology& t, RoutingPolicy policy);

// --- Flowcut (tb/config/flowcut.cpp); only with routing.policy flowcut ---
FlowcutParams build_flowcut_params(const Scenario& s, const Topology& t, const RoutingTable& routing);

// --- NIC (tb/config/nic.cpp): transport, congestion control and the reorder buffer ---
// `flowcut` is the run's Flowcut parameters (nullptr unless routing.policy is flowcut).
NicConfig build_nic_config(const Scenario& s, const Topology& t, const FlowcutParams* flowcut);
// nic.host_interface: the host interfaces' settings (not with the reorder transport).
NicHostConfig build_nic_host_config(const Scenario& s, const NicConfig& nic);

// --- Buffers, links, the fabric (tb/config/link.cpp) ---
struct BufferConfig {
  std::uint32_t input_bytes = 0;         // switch.input_buffer_bytes, per port and data VC
  std::uint32_t control_bytes = 0;       // switch.control_buffer_bytes
  std::uint32_t rx_bytes = 0;            // nic.rx_buffer_bytes
  std::uint32_t egress_queue_bytes = 0;  // switch.egress_queue_bytes
  std::uint32_t max_packet_bytes = 0;    // nic.mtu_bytes + nic.header_bytes
  // Credits a receiver advertises per VC: a switch its input buffers (VC 0 the control buffer), a NIC its
  // receive buffer on every VC.
  std::vector<std::uint32_t> credits(bool switch_receiver, std::uint8_t vcs) const;
};
// Every buffer must hold the largest packet (control buffers the largest ACK, SACK ranges included).
BufferConfig build_buffer_config(const Scenario& s, const NicConfig& nic);
LinkConfig build_link_config(const Scenario& s, const TopoLink& l, std::vector<std::uint32_t> credits);
// The event queue's horizon: the longest hop, the switch pipeline and the NIC's receive latency.
Ps event_horizon_ps(const Scenario& s, const Topology& t, const NicConfig& nic, std::uint32_t max_packet);

// --- Switch (tb/config/switch.cpp) ---
// Hop-by-hop flow control at the egress queues (switch.flow_control, switch.fc.*, switch.pfc.*).
EgressFcConfig build_egress_fc_config(const Scenario& s, std::uint32_t max_packet);
// stats.window_start_us / stats.window_end_us (the end after the start, or 0 for the run's end).
TimeWindow build_stats_window(const Scenario& s);
// Everything but the per-switch fields (radix, internal_gbps, vc_buffer_bytes), which for_switch() adds.
SwitchConfig build_switch_config(const Scenario& s, RoutingPolicy policy, std::uint8_t vcs,
                                 const BufferConfig& buffers, const FlowcutParams* flowcut);
SwitchConfig for_switch(const Scenario& s, SwitchConfig config, std::uint16_t radix, double fastest_port_gbps,
                        std::vector<std::uint32_t> credits);

}  // namespace netasic
