// Internal to tlm/cosim: what the C++-output adapters (impl = rtl) share (docs/cosim.md).
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <cstdint>
#include <memory>
#include <string>

#include "tlm/blocks/hash.h"
#include "tlm/common/error.h"
#include "tlm/cosim/rtl_handshake.h"
#include "tlm/cosim/waves.h"

namespace netasic::cosim {

// The key port: a scalar up to 64 bits, else a VlWide of 32-bit words, least significant first. Bits
// above the key width are zero (checked by the caller).
template <class P>
void put_key(P& port, const WideKey& k, unsigned bits) {
  if constexpr (sizeof(P) <= 8) {
    port = static_cast<P>(k.lo);
  } else {
    for (unsigned i = 0; i < (bits + 31) / 32; ++i) port[i] = key_word(k, i);
  }
}

// A 256-bit seed port (VlWide of 8 words): the generator's state.
template <class P>
void put_seed(P& port, const Rng& rng) {
  for (unsigned i = 0; i < 8; ++i) port[i] = seed_word(rng, i);
}

// The clock, reset and handshake pins of one C++-output model (ports clk_i, rst_ni, req_valid_i,
// req_ready_o, rsp_valid_o, rsp_ready_i), with its own VerilatedContext: the part of RtlHandshake's
// `Pins` every block shares. A block's Pins derives from it and adds its request and response fields.
template <class V>
class CppCore {
 public:
  explicit CppCore(const std::string& owner)
      : ctx_(context()), dut_(std::make_unique<V>(ctx_.get(), owner.c_str())) {}
  void clock(bool level) {
    dut_->clk_i = level;
    dut_->eval();
  }
  void reset(bool asserted) { dut_->rst_ni = !asserted; }
  void request_valid(bool v) { dut_->req_valid_i = v; }
  void response_ready(bool v) { dut_->rsp_ready_i = v; }
  bool request_ready() const { return dut_->req_ready_o; }
  bool response_valid() const { return dut_->rsp_valid_o; }
  void final() {
    dut_->final();
    if (fst_) fst_->close();
  }
  void trace_open(const std::string& path) {
    fst_ = std::make_unique<VerilatedFstC>();
    dut_->trace(fst_.get(), 99);
    fst_->open(path.c_str());
    if (!fst_->isOpen()) throw InputError("cosim.trace = fst: cannot write " + path);
  }
  void trace_dump(std::uint64_t time_ps) { fst_->dump(time_ps); }

 protected:
  V& dut() { return *dut_; }
  const V& dut() const { return *dut_; }

 private:
  // The model's own context; waveforms need tracing on before the model is built. One thread: the models
  // are Verilated single-threaded, and a context's default (the hardware's thread count) makes it start
  // a pool of that many idle worker threads when the model is added, each with its 8 MiB stack: one per
  // block instance (80 on the FlowSail k=4 fabric, and their stacks then took most of the start-up's
  // huge-page collapse).
  static std::unique_ptr<VerilatedContext> context() {
    auto c = std::make_unique<VerilatedContext>();
    c->threads(1);
    if (wave_options().fst) c->traceEverOn(true);
    return c;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> dut_;
  std::unique_ptr<VerilatedFstC> fst_;  // cosim.trace = fst, once the window opens
};

}  // namespace netasic::cosim
