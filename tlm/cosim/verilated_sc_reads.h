// Force-included into every source of netasic_cosim_models (tlm/cosim/CMakeLists.txt), after Verilator's
// own headers: one replacement in Verilator's runtime macros for the SystemC-output models.
//
// A Verilated sc_module copies each input port into the model at every evaluation. For a port wider than
// 64 bits (an sc_bv: the 104-bit keys, the 256-bit seeds) Verilator 5.006's VL_ASSIGN_WSW calls the
// port's read() once per 32-bit word, a virtual call through the bound channel each time: 8 calls for a
// seed, 4 for a key, at every evaluation, clock-low ones included. This version reads the port once and
// copies the words from that value: the same words, one call.
#pragma once

#include <verilated.h>

#ifdef VL_ASSIGN_WSW
#undef VL_ASSIGN_WSW
#define VL_ASSIGN_WSW(obits, owp, svar)                                  \
  {                                                                      \
    const auto& netasic_sc_value_ = (svar).read();                       \
    const int words = VL_WORDS_I(obits);                                 \
    for (int i = 0; i < words; ++i) (owp)[i] = netasic_sc_value_.get_word(i); \
    (owp)[words - 1] &= VL_MASK_E(obits);                                \
  }
#endif
