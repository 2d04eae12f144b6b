// Co-simulation adapters: the FGFC frame generator of a switch's Flowcut engine answered by the Verilated
// RTL (rtl/fgfc_generator.sv) instead of the C++ model, behind the same FgfcGeneratorIf
// (switch.fgfc_generator.impl = rtl: Verilator's C++ output; = rtl_sc: its SystemC output; docs/cosim.md).
// Each XOFF / XON request is one request on the RTL's request port and each frame one cycle of its frame
// port, clocked by the adapter through the shared handshake core (rtl_handshake.h), with the latency check
// and trace every co-simulated block has; idle network cycles run the RTL's gap counters.
#pragma once

#include <memory>
#include <string>

#include "tlm/blocks/fgfc.h"

namespace netasic {

// A generator answered by the Verilated RTL (C++ output / SystemC output). Throws InputError naming
// flowcut.fgfc_gap_cycles when no Verilated point matches `config` (the message lists the available ones);
// the SystemC-output one throws ModelError when called after elaboration.
std::unique_ptr<FgfcGeneratorIf> make_rtl_fgfc_generator(const FgfcGeneratorConfig& config, const std::string& owner);
std::unique_ptr<FgfcGeneratorIf> make_rtl_sc_fgfc_generator(const FgfcGeneratorConfig& config,
                                                            const std::string& owner);

}  // namespace netasic
