// Shared pieces of the RTL-vs-model testbenches: clocking a Verilated block, random pacing (idle cycles
// on requests, back-pressure on responses), the optional VCD dump of the window before a mismatch, and
// the latency trace (measured request -> response cycles next to what the C++ model declares).
//
// Environment:
//   NETASIC_VCD=<file>      dump a VCD of the run (up to the first mismatch, where the test stops)
//   NETASIC_VCD_FROM=<n>    start the dump at cycle n (a mismatch message suggests a value)
//   NETASIC_RAND_SEED=<n>   random initialisation: every flip-flop and RAM word starts from seed n's
//                           random value instead of 0 (so what the reset and the RAM-clear sequences
//                           miss stays random; the models are Verilated with
//                           --x-initial unique --x-assign unique; this is +verilator+rand+reset+2
//                           +verilator+seed+n). CTest runs each test at a few seeds (rtl_randinit_*).
//   NETASIC_COVERAGE_DIR=<d>  write the block's functional coverage (its `cover property` points; the
//                           models are Verilated with --coverage-user) to <d>/<point>_<pid>.dat at the
//                           end of the run (verification/rtl/coverage_report.py sums them per block)
#pragma once

#include <unistd.h>
#include <verilated.h>
#include <verilated_cov.h>
#include <verilated_vcd_c.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "tlm/blocks/hash.h"
#include "tlm/common/rng.h"

namespace netasic::rtl_test {

// Random pacing: a valid is raised with probability `go`, a ready with probability `ready`.
struct Pacer {
  Rng rng;
  double go = 0.7;
  double ready = 0.7;
  Pacer(std::uint64_t seed, double go_p, double ready_p) : rng(seed, 99), go(go_p), ready(ready_p) {}
  bool start() { return rng.uniform() < go; }
  bool accept() { return rng.uniform() < ready; }
};

template <class Model>
class Clocked {
 public:
  explicit Clocked(const std::string& name) : name_(name) {
    ctx_ = std::make_unique<VerilatedContext>();
    // Before the model exists: its constructor draws the initial values.
    if (const char* seed = std::getenv("NETASIC_RAND_SEED")) {
      ctx_->randReset(2);
      ctx_->randSeed(static_cast<int>(std::strtol(seed, nullptr, 10)));
    }
    Verilated::threadContextp(ctx_.get());
    model_ = std::make_unique<Model>(ctx_.get(), "dut");
    if (const char* vcd = std::getenv("NETASIC_VCD")) {
      ctx_->traceEverOn(true);
      vcd_path_ = vcd;
      if (const char* from = std::getenv("NETASIC_VCD_FROM")) vcd_from_ = std::strtoull(from, nullptr, 10);
    }
  }
  ~Clocked() {
    if (trace_) trace_->close();
    model_->final();
#ifdef NETASIC_RTL_COVERAGE
    if (const char* dir = std::getenv("NETASIC_COVERAGE_DIR")) {
      const std::string path = std::string(dir) + "/" + name_ + "_" + std::to_string(::getpid()) + ".dat";
      ctx_->coveragep()->write(path.c_str());
    }
#endif
  }
  Model& dut() { return *model_; }
  std::uint64_t cycle() const { return cycle_; }

  // Inputs of the current cycle are set: settle the combinational outputs.
  void settle() {
    model_->clk_i = 0;
    model_->eval();
    dump(0);
  }
  // Rising edge: end of the current cycle.
  void edge() {
    model_->clk_i = 1;
    model_->eval();
    dump(5);
    ++cycle_;
  }
  void reset(unsigned cycles = 4) {
    // Power-on: the asynchronous reset falls before the first clock edge (whatever rst_ni's initial
    // value), so no flop, the assertions' own state included, is clocked while still uninitialised.
    model_->rst_ni = 1;
    model_->eval();
    model_->rst_ni = 0;
    model_->eval();
    for (unsigned i = 0; i < cycles; ++i) {
      settle();
      edge();
    }
    model_->rst_ni = 1;
  }
  std::string vcd_hint() const {
    std::ostringstream s;
    s << " [cycle " << cycle_ << "; rerun with NETASIC_VCD=" << name_ << ".vcd NETASIC_VCD_FROM="
      << (cycle_ > 50 ? cycle_ - 50 : 0) << " for a waveform of the window]";
    return s.str();
  }

 private:
  void dump(unsigned offset) {
    if (vcd_path_.empty() || cycle_ < vcd_from_) return;
    if (!trace_) {
      trace_ = std::make_unique<VerilatedVcdC>();
      model_->trace(trace_.get(), 99);
      trace_->open(vcd_path_.c_str());
    }
    trace_->dump(cycle_ * 10 + offset);
  }
  std::string name_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<VerilatedVcdC> trace_;
  std::string vcd_path_;
  std::uint64_t vcd_from_ = 0;
  std::uint64_t cycle_ = 0;
};

// Latency trace: one line per request, compared against the model's declared latency.
class LatencyTrace {
 public:
  LatencyTrace(const std::string& block, const std::string& point) {
    path_ = std::string(NETASIC_RTL_TRACE_DIR) + "/" + block + "_" + point + ".csv";
    out_.open(path_);
    out_ << "op,accept_cycle,response_cycle,measured,model\n";
  }
  // Returns true when measured == model.
  bool record(const std::string& op, std::uint64_t accept, std::uint64_t response, std::uint64_t model) {
    const std::uint64_t measured = response - accept;
    out_ << op << ',' << accept << ',' << response << ',' << measured << ',' << model << '\n';
    auto& s = summary_[op];
    ++s.count;
    if (measured != model) ++s.mismatches;
    return measured == model;
  }
  std::uint64_t count(const std::string& op) const {
    auto it = summary_.find(op);
    return it == summary_.end() ? 0 : it->second.count;
  }
  const std::string& path() const { return path_; }

 private:
  struct Summary {
    std::uint64_t count = 0, mismatches = 0;
  };
  std::string path_;
  std::ofstream out_;
  std::map<std::string, Summary> summary_;
};

// Wide Verilator ports: a VlWide<N> of 32-bit words, least significant word first.
template <class W>
void set_wide(W& port, std::uint64_t hi, std::uint64_t lo, unsigned bits) {
  const unsigned words = (bits + 31) / 32;
  for (unsigned i = 0; i < words; ++i) {
    const unsigned at = i * 32;
    std::uint32_t v = at < 64 ? static_cast<std::uint32_t>(lo >> at) : static_cast<std::uint32_t>(hi >> (at - 64));
    port[i] = v;
  }
}

// A key port of `bits` bits: a plain integer port takes the low word, a wide one the whole key.
template <class P>
void put_key(P& port, const WideKey& k, unsigned bits) {
  if constexpr (sizeof(P) <= 8) {
    (void)bits;
    port = static_cast<P>(k.lo);
  } else {
    set_wide(port, k.hi, k.lo, bits);
  }
}

// Loads netasic::Rng(seed, stream)'s state into a block's 256-bit seed input (eight 32-bit words), so the
// RTL's generator starts where the C++ model's does.
template <class V>
void load_seed(V& d, std::uint64_t seed, std::uint64_t stream) {
  const Rng r(seed, stream);
  for (int i = 0; i < 4; ++i) {
    d.seed_i[2 * i] = static_cast<std::uint32_t>(r.state(i));
    d.seed_i[2 * i + 1] = static_cast<std::uint32_t>(r.state(i) >> 32);
  }
}

}  // namespace netasic::rtl_test
