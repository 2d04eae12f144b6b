// switch.flowcut_table.impl = rtl_sc: the Flowcut table answered by Verilator's SystemC output
// (verilate(... SYSTEMC ...)), evaluated synchronously by the adapter (flowcut_table_rtl_sc.h,
// docs/cosim.md). The request/response protocol is RtlFlowcutTable (flowcut_table_adapter.h), shared with
// impl = rtl; this file supplies the access to an sc_module's ports.
#include "tlm/cosim/flowcut_table_rtl_sc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "flowcut_rtl_sc_points.h"  // generated: the SystemC-output models, NETASIC_COSIM_FLOWCUT_SC_POINTS
#include "tlm/cosim/flowcut_table_adapter.h"

namespace netasic {
namespace {

using namespace cosim;

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

template <class T>
void put(ImmediateWire<T>& w, std::uint32_t v) {
  static_assert(std::is_integral_v<T>, "a Flowcut request port other than the key is not an integer port");
  w.write(static_cast<T>(v));
}
template <class T>
std::uint32_t get(const ImmediateWire<T>& w) {
  static_assert(std::is_integral_v<T>, "a Flowcut response port is not an integer port");
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
#define NETASIC_COSIM_SC_EVAL(model, name, hashed, entries, ways, key_bits, full) \
  void (model::*sc_eval_member(ScEvalTag<model>))();                            \
  template struct ScEvalExpose<model, &model::eval>;
NETASIC_COSIM_FLOWCUT_SC_POINTS(NETASIC_COSIM_SC_EVAL)
#undef NETASIC_COSIM_SC_EVAL

// The ports of one SystemC-output model, bound to ImmediateWires; the model's process is disabled.
template <class V>
class ScPins {
 public:
  ScPins(const std::string& owner, const PointInfo& point) {
    const sc_core::sc_status status = sc_core::sc_get_status();
    if (status != sc_core::SC_ELABORATION && status != sc_core::SC_BEFORE_END_OF_ELABORATION)
      throw ModelError("flowcut_table (rtl_sc " + std::string(point.name) + ", " + owner +
                       "): a SystemC-output RTL table can only be created while SystemC elaborates (before "
                       "sc_start); this table was requested after elaboration");
    // A child of the switch or NIC being constructed (e.g. sw3.flowcut_table_rtl_sc).
    dut_.reset(new V(sc_core::sc_gen_unique_name("flowcut_table_rtl_sc")));
    V& d = *dut_;
    d.clk_i.bind(clk_i_);
    d.rst_ni.bind(rst_ni_);
    d.req_valid_i.bind(req_valid_i_);
    d.req_ready_o.bind(req_ready_o_);
    d.req_op_i.bind(req_op_i_);
    d.req_key_i.bind(req_key_i_);
    d.req_index_i.bind(req_index_i_);
    d.req_out_port_i.bind(req_out_port_i_);
    d.req_in_port_i.bind(req_in_port_i_);
    d.req_bytes_i.bind(req_bytes_i_);
    d.req_rtt_avg_i.bind(req_rtt_avg_i_);
    d.req_last_rtt_i.bind(req_last_rtt_i_);
    d.req_rtt_diff_avg_i.bind(req_rtt_diff_avg_i_);
    d.req_drain_i.bind(req_drain_i_);
    d.rsp_valid_o.bind(rsp_valid_o_);
    d.rsp_ready_i.bind(rsp_ready_i_);
    d.rsp_status_o.bind(rsp_status_o_);
    d.rsp_index_o.bind(rsp_index_o_);
    d.rsp_deleted_o.bind(rsp_deleted_o_);
    d.rsp_inflight_o.bind(rsp_inflight_o_);
    d.rsp_out_port_o.bind(rsp_out_port_o_);
    d.rsp_in_port_o.bind(rsp_in_port_o_);
    d.rsp_rtt_avg_o.bind(rsp_rtt_avg_o_);
    d.rsp_last_rtt_o.bind(rsp_last_rtt_o_);
    d.rsp_rtt_diff_avg_o.bind(rsp_rtt_diff_avg_o_);
    d.rsp_drain_o.bind(rsp_drain_o_);
    // The model's SC_METHOD (sensitive to every input) would still run once when simulation starts;
    // disabled, the kernel never runs it and only the adapter evaluates the model.
    unsigned processes = 0;
    for (sc_core::sc_object* child : d.get_child_objects()) {
      sc_core::sc_process_handle h(child);
      if (!h.valid()) continue;
      h.disable();
      ++processes;
    }
    if (processes != 1)
      throw ModelError("flowcut_table (rtl_sc " + std::string(point.name) + ", " + owner + "): the Verilated module " +
                       d.name() + " has " + std::to_string(processes) + " processes, the adapter expects one");
  }
  void clock(bool level) {
    clk_i_.write(level);
    (dut_.get()->*sc_eval_member(ScEvalTag<V>{}))();
  }
  void reset(bool asserted) { rst_ni_.write(!asserted); }
  void request_valid(bool v) { req_valid_i_.write(v); }
  void response_ready(bool v) { rsp_ready_i_.write(v); }
  void drive(const CosimRequest& r, unsigned) {
    put(req_op_i_, r.op);
    put_key(req_key_i_, r.key);
    put(req_index_i_, r.index);
    put(req_out_port_i_, r.out_port & ((1u << kPortBits) - 1));
    put(req_in_port_i_, r.in_port & ((1u << kPortBits) - 1));
    put(req_bytes_i_, r.bytes);
    put(req_rtt_avg_i_, r.rtt_avg);
    put(req_last_rtt_i_, r.last_rtt);
    put(req_rtt_diff_avg_i_, r.rtt_diff);
    req_drain_i_.write(r.drain);
  }
  bool request_ready() const { return req_ready_o_.read(); }
  bool response_valid() const { return rsp_valid_o_.read(); }
  CosimResponse response() const {
    CosimResponse a;
    a.status = get(rsp_status_o_);
    a.index = get(rsp_index_o_);
    a.inflight = get(rsp_inflight_o_);
    a.deleted = rsp_deleted_o_.read();
    a.out_port = static_cast<std::uint16_t>(get(rsp_out_port_o_));
    a.in_port = static_cast<std::uint16_t>(get(rsp_in_port_o_));
    a.rtt_avg = static_cast<std::uint16_t>(get(rsp_rtt_avg_o_));
    a.last_rtt = static_cast<std::uint16_t>(get(rsp_last_rtt_o_));
    a.rtt_diff = static_cast<std::uint16_t>(get(rsp_rtt_diff_avg_o_));
    a.drain = rsp_drain_o_.read();
    return a;
  }
  void final() { dut_->final(); }

 private:
  sc_core::sc_event never_;  // the event every wire reports; nothing notifies it
#define NETASIC_WIRE(port) ImmediateWire<PortData<decltype(V::port)>> port##_{never_};
  NETASIC_WIRE(clk_i)
  NETASIC_WIRE(rst_ni)
  NETASIC_WIRE(req_valid_i)
  NETASIC_WIRE(req_ready_o)
  NETASIC_WIRE(req_op_i)
  NETASIC_WIRE(req_key_i)
  NETASIC_WIRE(req_index_i)
  NETASIC_WIRE(req_out_port_i)
  NETASIC_WIRE(req_in_port_i)
  NETASIC_WIRE(req_bytes_i)
  NETASIC_WIRE(req_rtt_avg_i)
  NETASIC_WIRE(req_last_rtt_i)
  NETASIC_WIRE(req_rtt_diff_avg_i)
  NETASIC_WIRE(req_drain_i)
  NETASIC_WIRE(rsp_valid_o)
  NETASIC_WIRE(rsp_ready_i)
  NETASIC_WIRE(rsp_status_o)
  NETASIC_WIRE(rsp_index_o)
  NETASIC_WIRE(rsp_deleted_o)
  NETASIC_WIRE(rsp_inflight_o)
  NETASIC_WIRE(rsp_out_port_o)
  NETASIC_WIRE(rsp_in_port_o)
  NETASIC_WIRE(rsp_rtt_avg_o)
  NETASIC_WIRE(rsp_last_rtt_o)
  NETASIC_WIRE(rsp_rtt_diff_avg_o)
  NETASIC_WIRE(rsp_drain_o)
#undef NETASIC_WIRE
  std::unique_ptr<V> dut_;  // declared last: destroyed before the wires its ports are bound to
};

template <class V>
std::unique_ptr<FlowcutTableIf> build(const FlowcutTableConfig& c, const std::string& owner, const PointInfo& p) {
  return std::make_unique<RtlFlowcutTable<ScPins<V>>>(c, owner, p, "rtl_sc");
}

const std::vector<Point>& points() {
#define NETASIC_COSIM_POINT(model, name, hashed, entries, ways, key_bits, full) \
  Point{PointInfo{name, hashed, entries, ways, key_bits, full != 0}, &build<model>},
  static const std::vector<Point> all = {NETASIC_COSIM_FLOWCUT_SC_POINTS(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::vector<std::string> rtl_sc_flowcut_table_points() {
  std::vector<std::string> out;
  for (const auto& p : points()) out.push_back(describe(p.info));
  return out;
}

std::unique_ptr<FlowcutTableIf> make_rtl_sc_flowcut_table(const FlowcutTableConfig& config, const std::string& owner) {
  return make_from_points(points(), "rtl_sc", config, owner);
}

}  // namespace netasic
