// switch.flowcut_table.impl = rtl_sc: the Flowcut table answered by Verilator's SystemC output
// (verilate(... SYSTEMC ...)), evaluated synchronously by the adapter (flowcut_table_rtl_sc.h,
// docs/cosim.md). The request/response protocol is RtlFlowcutTable (flowcut_table_adapter.h), shared with
// impl = rtl; this file supplies the access to an sc_module's ports.
#include "tlm/cosim/flowcut_table_rtl_sc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flowcut_rtl_sc_points.h"  // generated: the SystemC-output models, NETASIC_COSIM_FLOWCUT_SC_POINTS
#include "tlm/cosim/flowcut_table_adapter.h"
#include "tlm/cosim/sc_pins.h"

// The generated models' eval(), for ScCore (sc_pins.h).
namespace netasic::cosim {
#define NETASIC_COSIM_SC_EVAL(model, name, hashed, entries, ways, key_bits, full) NETASIC_COSIM_SC_EXPOSE_EVAL(model)
NETASIC_COSIM_FLOWCUT_SC_POINTS(NETASIC_COSIM_SC_EVAL)
#undef NETASIC_COSIM_SC_EVAL
}  // namespace netasic::cosim

namespace netasic {
namespace {

using namespace cosim;

// The ports of one SystemC-output model, bound to ImmediateWires; the model's process is disabled.
template <class V>
class ScPins : public ScCore<V> {
 public:
  ScPins(const std::string& owner, const PointInfo& point)
      : ScCore<V>("flowcut_table (rtl_sc " + std::string(point.name) + ", " + owner + ")", "flowcut_table_rtl_sc") {
    V& d = this->dut();
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
    this->seal();
  }
  ~ScPins() { this->destroy(); }  // the model goes before the wires its ports are bound to
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

 private:
  NETASIC_SC_WIRE(req_op_i)
  NETASIC_SC_WIRE(req_key_i)
  NETASIC_SC_WIRE(req_index_i)
  NETASIC_SC_WIRE(req_out_port_i)
  NETASIC_SC_WIRE(req_in_port_i)
  NETASIC_SC_WIRE(req_bytes_i)
  NETASIC_SC_WIRE(req_rtt_avg_i)
  NETASIC_SC_WIRE(req_last_rtt_i)
  NETASIC_SC_WIRE(req_rtt_diff_avg_i)
  NETASIC_SC_WIRE(req_drain_i)
  NETASIC_SC_WIRE(rsp_status_o)
  NETASIC_SC_WIRE(rsp_index_o)
  NETASIC_SC_WIRE(rsp_deleted_o)
  NETASIC_SC_WIRE(rsp_inflight_o)
  NETASIC_SC_WIRE(rsp_out_port_o)
  NETASIC_SC_WIRE(rsp_in_port_o)
  NETASIC_SC_WIRE(rsp_rtt_avg_o)
  NETASIC_SC_WIRE(rsp_last_rtt_o)
  NETASIC_SC_WIRE(rsp_rtt_diff_avg_o)
  NETASIC_SC_WIRE(rsp_drain_o)
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
