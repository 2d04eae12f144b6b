// Co-simulation adapter: the Flowcut table of a switch or NIC answered by the Verilated RTL
// (rtl/flowcut_table.sv) instead of the C++ model, behind the same FlowcutTableIf
// (switch.flowcut_table.impl = rtl; docs/cosim.md).
//
// Each FlowcutTableIf call is one request on the RTL's valid/ready port (set_rtt and set_drain are a READ
// then a WRITE, as the RTL writes the RTT fields and the drain bit together): the adapter drives the
// request, clocks the Verilated model (C++ output) until the response is valid, takes it and returns it.
// The call is synchronous, so the event-driven network sees the same interface as with the model; the
// RTL's clock advances only while an operation is in flight.
//
// Latency: the cycles from the request handshake to the first cycle the response is valid are compared
// with the latency the table's config declares (FlowcutTableConfig::latency, per operation); a difference
// throws ModelError. Every operation's measurement is appended to a CSV trace
//   owner,point,op,accept_cycle,response_cycle,measured,model
// at $NETASIC_COSIM_TRACE, or ./flowcut_table_rtl_latency.csv when it is unset (NETASIC_COSIM_TRACE=off
// disables the file, not the check).
//
// Statistics (occupancy, high water, histogram, insert failures) are kept by the adapter from the RTL's
// answers, sampled as the model samples them; storage() is the model's formula for the same config.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tlm/blocks/flowcut_table.h"

namespace netasic {

// The Verilated parameter points, e.g. "cam64 (cam, 64 entries, ingress_only/nic_only)".
std::vector<std::string> rtl_flowcut_table_points();

// A table answered by the Verilated RTL. Throws InputError naming flowcut.table.entries /
// organization / ways when no Verilated point matches `config` (the message lists the available ones).
std::unique_ptr<FlowcutTableIf> make_rtl_flowcut_table(const FlowcutTableConfig& config, const std::string& owner);

}  // namespace netasic
