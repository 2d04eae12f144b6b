// The testbench's own sections of summary.json: its scoreboards (flows and FCT, packets, bytes, links,
// ports). Each function takes what it reports on and returns that section's JSON. The mechanisms' sections
// come from the mechanisms themselves (tlm/model/report.h).
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
nlohmann::json report_bytes(const NicCounters& n);                                 // "bytes"
nlohmann::json report_links(const Links& links, const Topology& topology, Ps end_time);  // "links"
// The same from each link's busy time (Links' order).
nlohmann::json report_links(const std::vector<Ps>& busy, const Topology& topology, Ps end_time);
nlohmann::json report_ports(const Switches& switches);                             // "ports"

}  // namespace netasic
