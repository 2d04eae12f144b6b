// switch.flowlet_table.impl = rtl_sc: the flowlet table answered by Verilator's SystemC output, evaluated
// synchronously by the adapter (flowlet_table_rtl.h, docs/cosim.md). RtlFlowletTable
// (flowlet_table_adapter.h) does the work, as for impl = rtl; this file reaches the sc_module's ports.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowlet_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_FLOWLET_POINTS(_SC)
#include "tlm/cosim/flowlet_table_adapter.h"
#include "tlm/cosim/flowlet_table_rtl.h"
#include "tlm/cosim/sc_pins.h"

// The generated models' eval(), for ScCore (sc_pins.h).
namespace netasic::cosim {
#define NETASIC_COSIM_SC_EVAL(model, name, entries, key_bits, port_bits) NETASIC_COSIM_SC_EXPOSE_EVAL(model)
NETASIC_COSIM_FLOWLET_POINTS_SC(NETASIC_COSIM_SC_EVAL)
#undef NETASIC_COSIM_SC_EVAL
}  // namespace netasic::cosim

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class FlowletScPins : public ScCore<V> {
 public:
  FlowletScPins(const std::string& owner, const FlowletPoint& point)
      : ScCore<V>("flowlet_table (rtl_sc " + std::string(point.name) + ", " + owner + ")", "flowlet_table_rtl_sc") {
    V& d = this->dut();
    d.seed_i.bind(seed_i_);
    d.req_op_i.bind(req_op_i_);
    d.req_key_i.bind(req_key_i_);
    d.req_port_count_i.bind(req_port_count_i_);
    d.rsp_port_o.bind(rsp_port_o_);
    d.rsp_new_flowlet_o.bind(rsp_new_flowlet_o_);
    d.rsp_index_o.bind(rsp_index_o_);
    this->seal();
  }
  ~FlowletScPins() { this->destroy(); }  // the model goes before the wires its ports are bound to
  void seed(const Rng& rng) { put_seed(seed_i_, rng); }
  void drive(bool check, const WideKey& key, std::uint32_t port_count) {
    req_op_i_.write(check);
    put_key(req_key_i_, key);
    put(req_port_count_i_, port_count);
  }
  FlowletResult response() const {
    return {static_cast<std::uint16_t>(get(rsp_port_o_)), rsp_new_flowlet_o_.read(), get(rsp_index_o_)};
  }

 private:
  NETASIC_SC_WIRE(seed_i)
  NETASIC_SC_WIRE(req_op_i)
  NETASIC_SC_WIRE(req_key_i)
  NETASIC_SC_WIRE(req_port_count_i)
  NETASIC_SC_WIRE(rsp_port_o)
  NETASIC_SC_WIRE(rsp_new_flowlet_o)
  NETASIC_SC_WIRE(rsp_index_o)
};

template <class V>
std::unique_ptr<FlowletTableIf> build(const FlowletTableConfig& c, const std::string& owner, const FlowletPoint& p) {
  return std::make_unique<RtlFlowletTable<FlowletScPins<V>>>(c, owner, p, "rtl_sc");
}

const std::vector<FlowletPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, entries, key_bits, port_bits) FlowletPointEntry{FlowletPoint{name, entries}, &build<model>},
  static const std::vector<FlowletPointEntry> all = {NETASIC_COSIM_FLOWLET_POINTS_SC(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::unique_ptr<FlowletTableIf> make_rtl_sc_flowlet_table(const FlowletTableConfig& config, const std::string& owner) {
  return cosim::make_flowlet_from_points(points(), "rtl_sc", config, owner);
}

}  // namespace netasic
