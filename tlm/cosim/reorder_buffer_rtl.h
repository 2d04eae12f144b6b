// Co-simulation adapters: the rearrange buffer of a NIC's reorder transport answered by the Verilated RTL
// (rtl/reorder_buffer.sv) instead of the C++ model, behind the same ReorderBufferIf
// (nic.reorder_buffer.impl = rtl: Verilator's C++ output; = rtl_sc: its SystemC output; docs/cosim.md).
// Each arrival is one request whose events the RTL streams back, clocked by the adapter through the shared
// handshake core (rtl_handshake.h), with the latency check and trace every co-simulated block has.
#pragma once

#include <memory>
#include <string>

#include "tlm/blocks/reorder_buffer.h"

namespace netasic {

// A buffer answered by the Verilated RTL (C++ output / SystemC output). Throws InputError naming
// nic.reorder.buffer_bytes / unit_bytes / memory when no Verilated point matches `config` (the message
// lists the available ones); the SystemC-output one throws ModelError when called after elaboration.
std::unique_ptr<ReorderBufferIf> make_rtl_reorder_buffer(const ReorderBufferConfig& config, const std::string& owner);
std::unique_ptr<ReorderBufferIf> make_rtl_sc_reorder_buffer(const ReorderBufferConfig& config, const std::string& owner);

}  // namespace netasic
