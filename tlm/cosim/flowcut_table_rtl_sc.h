// Co-simulation adapter on Verilator's SystemC output (switch.flowcut_table.impl = rtl_sc; docs/cosim.md):
// the Flowcut table of a switch or NIC answered by rtl/flowcut_table.sv Verilated with --sc, i.e. an
// sc_module with sc_in/sc_out ports, behind the same FlowcutTableIf and with the same protocol, latency
// check and trace as impl = rtl (flowcut_table_adapter.h).
//
// The switch calls its table synchronously in the middle of handling a packet, while a SystemC-output
// model normally advances only when the SystemC kernel runs its process. So the adapter keeps the kernel
// out of it: the model's ports are bound to ImmediateWire channels (sc_signal_inout_if) whose write()
// takes effect at once and whose events are never notified, the model's process is disabled before
// simulation starts, and each call sets the inputs and runs the model's evaluation itself, cycle by
// cycle, toggling clk_i, exactly like the C++-output adapter.
//
// A SystemC module can only be created while SystemC elaborates: the switches and NICs build their tables
// in their constructors, which tb/simulation.cpp runs before sc_start. Creating a table later throws
// ModelError.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tlm/blocks/flowcut_table.h"

namespace netasic {

// The Verilated (SystemC output) parameter points, same names and parameters as rtl_flowcut_table_points().
std::vector<std::string> rtl_sc_flowcut_table_points();

// A table answered by the SystemC-output Verilated RTL. Throws InputError naming flowcut.table.entries /
// organization / ways when no Verilated point matches `config` (the message lists the available ones), and
// ModelError when called after SystemC elaboration.
std::unique_ptr<FlowcutTableIf> make_rtl_sc_flowcut_table(const FlowcutTableConfig& config, const std::string& owner);

}  // namespace netasic
