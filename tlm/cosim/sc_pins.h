// Internal to tlm/cosim: what the SystemC-output adapters (impl = rtl_sc) share (docs/cosim.md): the
// channels their Verilated sc_modules' ports are bound to, the access to a module's evaluation, and the
// elaboration-time checks.
#pragma once

#include <systemc>
#include <verilated_fst_c.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "tlm/common/error.h"
#include "tlm/cosim/rtl_handshake.h"
#include "tlm/cosim/waves.h"

namespace netasic::cosim {

// A channel for one port of the Verilated sc_module, in place of an sc_signal: write() takes effect at
// once (no update phase) and no event is ever notified, so the SystemC kernel never schedules the model.
// Only the adapter writes inputs and reads outputs, between its own evaluations of the model.
template <class T>
class WireBase : public sc_core::sc_signal_inout_if<T> {
 public:
  explicit WireBase(const sc_core::sc_event& never) : never_(never) {}
  const sc_core::sc_event& default_event() const override { return never_; }
  const sc_core::sc_event& value_changed_event() const override { return never_; }
  const T& read() const override { return value_; }
  const T& get_data_ref() const override { return value_; }
  bool event() const override { return false; }
  void write(const T& v) override { value_ = v; }

 protected:
  const sc_core::sc_event& never_;
  T value_{};
};

template <class T>
class ImmediateWire final : public WireBase<T> {
 public:
  using WireBase<T>::WireBase;
};

// sc_in<bool> (clocks, resets) also asks for edge events.
template <>
class ImmediateWire<bool> final : public WireBase<bool> {
 public:
  using WireBase<bool>::WireBase;
  const sc_core::sc_event& posedge_event() const override { return never_; }
  const sc_core::sc_event& negedge_event() const override { return never_; }
  bool posedge() const override { return false; }
  bool negedge() const override { return false; }
};

// The value type of a generated port (sc_in<T> / sc_out<T>): bool, uint32_t, uint64_t or sc_bv<N> by
// width (Verilator 5.006 defaults). Every Flowcut point has 104-bit (sc_bv<104>) or 32-bit keys and
// ports of at most 32 bits.
template <class P>
using PortData = typename std::remove_reference_t<P>::data_type;

// The generated sc_module declares its evaluation entry point, eval() (what its SC_METHOD runs), private:
// Verilator expects only the kernel to call it. An explicit instantiation may name a private member
// ([temp.explicit]: access checking does not apply to its template arguments), so ScEvalExpose hands
// &V::eval to the adapter through a friend function, without touching the generated code.
template <class V>
struct ScEvalTag {};
template <class V, void (V::*Eval)()>
struct ScEvalExpose {
  friend void (V::*sc_eval_member(ScEvalTag<V>))() { return Eval; }
};
#define NETASIC_COSIM_SC_EXPOSE_EVAL(model)           \
  void (model::*sc_eval_member(ScEvalTag<model>))(); \
  template struct ScEvalExpose<model, &model::eval>;
template <class T>
void put(ImmediateWire<T>& w, std::uint32_t v) {
  static_assert(std::is_integral_v<T>, "a request port other than a key is not an integer port");
  w.write(static_cast<T>(v));
}
template <class T>
std::uint32_t get(const ImmediateWire<T>& w) {
  static_assert(std::is_integral_v<T>, "a response port is not an integer port");
  return static_cast<std::uint32_t>(w.read());
}
// The key: an integer port up to 64 bits, else an sc_bv of 32-bit words, least significant first. Bits
// above the key width are zero (checked by the caller).
template <class T>
void put_key(ImmediateWire<T>& w, const WideKey& k) {
  if constexpr (std::is_integral_v<T>) {
    w.write(static_cast<T>(k.lo));
  } else {
    T bv;
    for (int i = 0; i < (bv.length() + 31) / 32; ++i) bv.set_word(i, key_word(k, static_cast<unsigned>(i)));
    w.write(bv);
  }
}

// A 256-bit seed (an sc_bv of 8 words): the generator's state.
template <class T>
void put_seed(ImmediateWire<T>& w, const Rng& rng) {
  T bv;
  for (int i = 0; i < 8; ++i) bv.set_word(i, seed_word(rng, static_cast<unsigned>(i)));
  w.write(bv);
}

// The SystemC-output model of `block` can only be created while SystemC elaborates.
inline void check_elaborating(const std::string& name) {
  const sc_core::sc_status status = sc_core::sc_get_status();
  if (status != sc_core::SC_ELABORATION && status != sc_core::SC_BEFORE_END_OF_ELABORATION)
    throw ModelError(name + ": a SystemC-output RTL block can only be created while SystemC elaborates (before "
                     "sc_start); this one was requested after elaboration");
}

// The model's SC_METHOD (sensitive to every input) would still run once when simulation starts; disabled,
// the kernel never runs it and only the adapter evaluates the model. Throws unless there is exactly one.
inline void disable_process(sc_core::sc_module& m, const std::string& name) {
  unsigned processes = 0;
  for (sc_core::sc_object* child : m.get_child_objects()) {
    sc_core::sc_process_handle h(child);
    if (!h.valid()) continue;
    h.disable();
    ++processes;
  }
  if (processes != 1)
    throw ModelError(name + ": the Verilated module " + m.name() + " has " + std::to_string(processes) +
                     " processes, the adapter expects one");
}

// The SystemC-output models share Verilator's global context, whose thread pool starts when the first
// model is added: one thread (the models are Verilated single-threaded), not the default of the hardware's
// thread count, which would start that many idle worker threads. Before the first model is built.
inline void single_thread_context() {
  static const bool once = [] {
    Verilated::threadContextp()->threads(1);
    return true;
  }();
  (void)once;
}

// The clock, reset and handshake pins of one SystemC-output model (ports clk_i, rst_ni, req_valid_i,
// req_ready_o, rsp_valid_o, rsp_ready_i) bound to ImmediateWires, and its evaluation: the part of
// RtlHandshake's `Pins` every block shares. A block's Pins derives from it, binds its own fields' wires in
// its constructor, then calls seal() (disables the model's process); its destructor calls destroy(), so
// the model goes before the wires its ports are bound to. The model is a child of the sc_module being
// constructed (e.g. sw3.flowcut_table_rtl_sc_0). The eval() accessor needs
// NETASIC_COSIM_SC_EXPOSE_EVAL(V) at namespace scope.
template <class V>
class ScCore {
 public:
  // `name` is the block's message prefix; `basename` the model's SystemC name.
  ScCore(const std::string& name, const char* basename) : name_(name) {
    check_elaborating(name);
    if (wave_options().fst) Verilated::traceEverOn(true);  // before the model is built
    single_thread_context();
    dut_.reset(new V(sc_core::sc_gen_unique_name(basename)));
    V& d = *dut_;
    d.clk_i.bind(clk_i_);
    d.rst_ni.bind(rst_ni_);
    d.req_valid_i.bind(req_valid_i_);
    d.req_ready_o.bind(req_ready_o_);
    d.rsp_valid_o.bind(rsp_valid_o_);
    d.rsp_ready_i.bind(rsp_ready_i_);
  }
  ScCore(const ScCore&) = delete;
  ScCore& operator=(const ScCore&) = delete;
  ~ScCore() { destroy(); }

  void clock(bool level) {
    clk_i_.write(level);
    (dut_.get()->*sc_eval_member(ScEvalTag<V>{}))();
  }
  void reset(bool asserted) { rst_ni_.write(!asserted); }
  void request_valid(bool v) { req_valid_i_.write(v); }
  void response_ready(bool v) { rsp_ready_i_.write(v); }
  bool request_ready() const { return req_ready_o_.read(); }
  bool response_valid() const { return rsp_valid_o_.read(); }
  void final() {
    dut_->final();
    if (fst_) fst_->close();
  }
  // A plain VerilatedFstC (not VerilatedFstSc, which follows the SystemC kernel's time): the adapter
  // dumps after its own evaluations, at the time it chooses.
  void trace_open(const std::string& path) {
    fst_ = std::make_unique<VerilatedFstC>();
    dut_->trace(fst_.get(), 99);
    fst_->open(path.c_str());
    if (!fst_->isOpen()) throw InputError("cosim.trace = fst: cannot write " + path);
  }
  void trace_dump(std::uint64_t time_ps) { fst_->dump(time_ps); }

 protected:
  V& dut() { return *dut_; }
  const sc_core::sc_event& never() const { return never_; }
  void seal() { disable_process(*dut_, name_); }
  void destroy() {
    fst_.reset();
    dut_.reset();
  }

 private:
  std::string name_;
  sc_core::sc_event never_;  // the event every wire reports; nothing notifies it
  ImmediateWire<PortData<decltype(V::clk_i)>> clk_i_{never_};
  ImmediateWire<PortData<decltype(V::rst_ni)>> rst_ni_{never_};
  ImmediateWire<PortData<decltype(V::req_valid_i)>> req_valid_i_{never_};
  ImmediateWire<PortData<decltype(V::req_ready_o)>> req_ready_o_{never_};
  ImmediateWire<PortData<decltype(V::rsp_valid_o)>> rsp_valid_o_{never_};
  ImmediateWire<PortData<decltype(V::rsp_ready_i)>> rsp_ready_i_{never_};
  std::unique_ptr<V> dut_;
  std::unique_ptr<VerilatedFstC> fst_;  // cosim.trace = fst, once the window opens
};

// A wire for the generated port `port` of V (inside a class deriving from ScCore<V>).
#define NETASIC_SC_WIRE(port) ImmediateWire<PortData<decltype(V::port)>> port##_{this->never()};

}  // namespace netasic::cosim
