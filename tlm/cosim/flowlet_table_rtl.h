// Co-simulation adapters: the LetFlow flowlet table of a switch answered by the Verilated RTL
// (rtl/flowlet_table.sv) instead of the C++ model, behind the same FlowletTableIf
// (switch.flowlet_table.impl = rtl: Verilator's C++ output; = rtl_sc: its SystemC output; docs/cosim.md).
// Each access is one ACCESS request (after the CHECK sweeps simulated time has brought since the previous
// access), clocked by the adapter through the shared handshake core (rtl_handshake.h), with the latency
// check and trace every co-simulated block has.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tlm/blocks/flowlet_table.h"

namespace netasic {

// The Verilated parameter points, e.g. "fl64 (64 entries, key 104 bits, port 8 bits)".
std::vector<std::string> rtl_flowlet_table_points();

// A table answered by the Verilated RTL (C++ output / SystemC output). Throws InputError naming
// letflow.entries when no Verilated point matches `config` (the message lists the available ones); the
// SystemC-output one throws ModelError when called after SystemC elaboration.
std::unique_ptr<FlowletTableIf> make_rtl_flowlet_table(const FlowletTableConfig& config, const std::string& owner);
std::unique_ptr<FlowletTableIf> make_rtl_sc_flowlet_table(const FlowletTableConfig& config, const std::string& owner);

}  // namespace netasic
