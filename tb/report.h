// summary.json, one section per mechanism: each function takes the components (or counters) whose
// statistics it reports and returns that section's JSON. Simulation::summary() calls them in order.
// Shaped so that each can move into the component that owns the statistics behind one `report`
// interface without changing the output.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tb/topology.h"
#include "tlm/model/flow.h"
#include "tlm/model/link.h"
#include "tlm/model/nic.h"
#include "tlm/model/switch.h"

namespace netasic {

using Switches = std::vector<std::unique_ptr<Switch>>;
using Nics = std::vector<std::unique_ptr<Nic>>;
using Links = std::vector<std::unique_ptr<Link>>;  // two per topology link: [2i] a->b, [2i+1] b->a
using IdealFct = std::function<Ps(const Flow&)>;

// Every NIC's counters added up (the maximum for max_ooo_degree).
NicCounters sum_nic_counters(const Nics& nics);

nlohmann::json report_flows(const FlowTable& flows, const IdealFct& ideal_fct);  // "flows": FCT and slowdown
nlohmann::json report_packets(const NicCounters& n, const FlowTable& flows, const Switches& switches,
                              const Links& links);                                // "packets"
nlohmann::json report_go_back_n(const NicCounters& n);                             // "go_back_n"
nlohmann::json report_selective_repeat(const NicCounters& n, const FlowTable& flows, const Nics& nics,
                                       const NicConfig& config);
nlohmann::json report_reorder(const NicCounters& n, const Nics& nics, const NicConfig& config,
                              const std::string& memory, const std::string& injection);  // "reorder"
nlohmann::json report_bytes(const NicCounters& n);                                 // "bytes"
nlohmann::json report_ecn(const Switches& switches, std::int64_t threshold_bytes);  // "ecn"
nlohmann::json report_dctcp(const NicCounters& n, const FlowTable& flows, const Nics& nics, const DctcpConfig& config);
nlohmann::json report_links(const Links& links, const Topology& topology, Ps end_time);  // "links"
nlohmann::json report_ports(const Switches& switches);                             // "ports"
nlohmann::json report_flowcut(const Switches& switches, const Nics& nics, const FlowTable& flows,
                              const std::string& variant);                         // "flowcut"
nlohmann::json report_flow_control(const Switches& switches, const Nics& nics, const FlowTable& flows);
nlohmann::json report_letflow(const Switches& switches);                           // "letflow"

// tables.json: every Flowcut and flowlet table.
nlohmann::json report_tables(const Switches& switches, const Nics& nics);

}  // namespace netasic
