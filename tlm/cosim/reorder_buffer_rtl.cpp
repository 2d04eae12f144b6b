// nic.reorder_buffer.impl = rtl: the rearrange buffer answered by Verilator's C++ output
// (reorder_buffer_rtl.h, docs/cosim.md). RtlReorderBuffer (reorder_buffer_adapter.h) does the work; this
// file reaches the model's ports.
#include "tlm/cosim/reorder_buffer_rtl.h"

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "reorder_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_REORDER_POINTS(_SC)
#include "tlm/cosim/cpp_pins.h"
#include "tlm/cosim/reorder_buffer_adapter.h"

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class ReorderCppPins : public CppCore<V> {
 public:
  ReorderCppPins(const std::string& owner, const ReorderPoint&) : CppCore<V>(owner) {}
  void drive(unsigned connection, std::uint32_t sn, std::uint32_t units) {
    V& d = this->dut();
    d.req_conn_i = static_cast<std::remove_reference_t<decltype(d.req_conn_i)>>(connection);
    d.req_sn_i = sn;
    d.req_units_i = static_cast<std::remove_reference_t<decltype(d.req_units_i)>>(units);
  }
  ReorderBeat beat() const {
    const V& d = this->dut();
    return {static_cast<unsigned>(d.rsp_kind_o), static_cast<std::uint32_t>(d.rsp_sn_o), d.rsp_last_o != 0};
  }
};

template <class V>
std::unique_ptr<ReorderBufferIf> build(const ReorderBufferConfig& c, const std::string& owner, const ReorderPoint& p) {
  return std::make_unique<RtlReorderBuffer<ReorderCppPins<V>>>(c, owner, p, "rtl");
}

const std::vector<ReorderPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, conns, units, max_units, seq_bits) \
  ReorderPointEntry{ReorderPoint{name, conns, units, max_units}, &build<model>},
  static const std::vector<ReorderPointEntry> all = {NETASIC_COSIM_REORDER_POINTS(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::unique_ptr<ReorderBufferIf> make_rtl_reorder_buffer(const ReorderBufferConfig& config, const std::string& owner) {
  return cosim::make_reorder_from_points(points(), "rtl", config, owner);
}

}  // namespace netasic
