// Co-simulation adapters: FlowSail's identifier/mapper of one switch port and queue group answered by the
// Verilated RTL (rtl/flowsail.sv) instead of the C++ model, behind the same FlowsailIf
// (switch.flowsail.impl = rtl: Verilator's C++ output; = rtl_sc: its SystemC output; docs/cosim.md). Each
// enqueue, dequeue, control frame and CFT release is one request on the RTL's request port, clocked by the
// adapter through the shared handshake core (rtl_handshake.h), with the latency check and trace every
// co-simulated block has.
#pragma once

#include <memory>
#include <string>

#include "tlm/blocks/flowsail.h"

namespace netasic {

// A block answered by the Verilated RTL (C++ output / SystemC output). Throws InputError naming
// switch.fc.queues, switch.fc.groups, switch.fc.nft_entries and switch.fc.cft_entries when no Verilated point
// matches `config` (the message lists the available ones); the SystemC-output one throws ModelError when
// called after elaboration.
std::unique_ptr<FlowsailIf> make_rtl_flowsail(const FlowsailConfig& config, Rng& rng, const std::string& owner);
std::unique_ptr<FlowsailIf> make_rtl_sc_flowsail(const FlowsailConfig& config, Rng& rng, const std::string& owner);

}  // namespace netasic
