// nic.reorder_buffer.impl = rtl_sc: the rearrange buffer answered by Verilator's SystemC output, evaluated
// synchronously by the adapter (reorder_buffer_rtl.h, docs/cosim.md). RtlReorderBuffer
// (reorder_buffer_adapter.h) does the work, as for impl = rtl; this file reaches the sc_module's ports.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reorder_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_REORDER_POINTS(_SC)
#include "tlm/cosim/reorder_buffer_adapter.h"
#include "tlm/cosim/reorder_buffer_rtl.h"
#include "tlm/cosim/sc_pins.h"

// The generated models' eval(), for ScCore (sc_pins.h).
namespace netasic::cosim {
#define NETASIC_COSIM_SC_EVAL(model, name, conns, units, max_units, seq_bits) NETASIC_COSIM_SC_EXPOSE_EVAL(model)
NETASIC_COSIM_REORDER_POINTS_SC(NETASIC_COSIM_SC_EVAL)
#undef NETASIC_COSIM_SC_EVAL
}  // namespace netasic::cosim

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class ReorderScPins : public ScCore<V> {
 public:
  ReorderScPins(const std::string& owner, const ReorderPoint& point)
      : ScCore<V>("reorder_buffer (rtl_sc " + std::string(point.name) + ", " + owner + ")", "reorder_buffer_rtl_sc") {
    V& d = this->dut();
    d.req_conn_i.bind(req_conn_i_);
    d.req_sn_i.bind(req_sn_i_);
    d.req_units_i.bind(req_units_i_);
    d.rsp_kind_o.bind(rsp_kind_o_);
    d.rsp_sn_o.bind(rsp_sn_o_);
    d.rsp_last_o.bind(rsp_last_o_);
    this->seal();
  }
  ~ReorderScPins() { this->destroy(); }  // the model goes before the wires its ports are bound to
  void drive(unsigned connection, std::uint32_t sn, std::uint32_t units) {
    put(req_conn_i_, connection);
    put(req_sn_i_, sn);
    put(req_units_i_, units);
  }
  ReorderBeat beat() const { return {get(rsp_kind_o_), get(rsp_sn_o_), rsp_last_o_.read()}; }

 private:
  NETASIC_SC_WIRE(req_conn_i)
  NETASIC_SC_WIRE(req_sn_i)
  NETASIC_SC_WIRE(req_units_i)
  NETASIC_SC_WIRE(rsp_kind_o)
  NETASIC_SC_WIRE(rsp_sn_o)
  NETASIC_SC_WIRE(rsp_last_o)
};

template <class V>
std::unique_ptr<ReorderBufferIf> build(const ReorderBufferConfig& c, const std::string& owner, const ReorderPoint& p) {
  return std::make_unique<RtlReorderBuffer<ReorderScPins<V>>>(c, owner, p, "rtl_sc");
}

const std::vector<ReorderPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, conns, units, max_units, seq_bits) \
  ReorderPointEntry{ReorderPoint{name, conns, units, max_units}, &build<model>},
  static const std::vector<ReorderPointEntry> all = {NETASIC_COSIM_REORDER_POINTS_SC(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::unique_ptr<ReorderBufferIf> make_rtl_sc_reorder_buffer(const ReorderBufferConfig& config, const std::string& owner) {
  return cosim::make_reorder_from_points(points(), "rtl_sc", config, owner);
}

}  // namespace netasic
