// switch.flowcut_table.impl = rtl: the Flowcut table answered by Verilator's C++ output, clocked by the
// adapter (docs/cosim.md). The request/response protocol is RtlFlowcutTable (flowcut_table_adapter.h);
// this file only reaches the C++ model's ports, which are plain members of the model class.
#include "tlm/cosim/flowcut_table_rtl.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowcut_rtl_points.h"  // generated: the Verilated models and NETASIC_COSIM_FLOWCUT_POINTS
#include "tlm/cosim/cpp_pins.h"
#include "tlm/cosim/flowcut_table_adapter.h"

namespace netasic {
namespace {

using namespace cosim;

// The ports of one C++-output model: the shared clock/handshake pins and the table's fields.
template <class V>
class CppPins : public CppCore<V> {
 public:
  CppPins(const std::string& owner, const PointInfo&) : CppCore<V>(owner) {}
  void drive(const CosimRequest& r, unsigned key_bits) {
    V& d = this->dut();
    d.req_op_i = r.op;
    put_key(d.req_key_i, r.key, key_bits);
    d.req_index_i = r.index;
    d.req_out_port_i = static_cast<std::uint8_t>(r.out_port & ((1u << kPortBits) - 1));
    d.req_in_port_i = static_cast<std::uint8_t>(r.in_port & ((1u << kPortBits) - 1));
    d.req_bytes_i = r.bytes;
    d.req_rtt_avg_i = r.rtt_avg;
    d.req_last_rtt_i = r.last_rtt;
    d.req_rtt_diff_avg_i = r.rtt_diff;
    d.req_drain_i = r.drain;
  }
  CosimResponse response() const {
    const V& d = this->dut();
    CosimResponse a;
    a.status = d.rsp_status_o;
    a.index = d.rsp_index_o;
    a.inflight = d.rsp_inflight_o;
    a.deleted = d.rsp_deleted_o != 0;
    a.out_port = d.rsp_out_port_o;
    a.in_port = d.rsp_in_port_o;
    a.rtt_avg = d.rsp_rtt_avg_o;
    a.last_rtt = d.rsp_last_rtt_o;
    a.rtt_diff = d.rsp_rtt_diff_avg_o;
    a.drain = d.rsp_drain_o != 0;
    return a;
  }
};

template <class V>
std::unique_ptr<FlowcutTableIf> build(const FlowcutTableConfig& c, const std::string& owner, const PointInfo& p) {
  return std::make_unique<RtlFlowcutTable<CppPins<V>>>(c, owner, p, "rtl");
}

const std::vector<Point>& points() {
#define NETASIC_COSIM_POINT(model, name, hashed, entries, ways, key_bits, full) \
  Point{PointInfo{name, hashed, entries, ways, key_bits, full != 0}, &build<model>},
  static const std::vector<Point> all = {NETASIC_COSIM_FLOWCUT_POINTS(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::vector<std::string> rtl_flowcut_table_points() {
  std::vector<std::string> out;
  for (const auto& p : points()) out.push_back(describe(p.info));
  return out;
}

std::unique_ptr<FlowcutTableIf> make_rtl_flowcut_table(const FlowcutTableConfig& config, const std::string& owner) {
  return make_from_points(points(), "rtl", config, owner);
}

}  // namespace netasic
