// switch.flowlet_table.impl = rtl: the flowlet table answered by Verilator's C++ output (flowlet_table_rtl.h,
// docs/cosim.md). RtlFlowletTable (flowlet_table_adapter.h) does the work; this file reaches the model's ports.
#include "tlm/cosim/flowlet_table_rtl.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowlet_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_FLOWLET_POINTS(_SC)
#include "tlm/cosim/cpp_pins.h"
#include "tlm/cosim/flowlet_table_adapter.h"

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class FlowletCppPins : public CppCore<V> {
 public:
  FlowletCppPins(const std::string& owner, const FlowletPoint&) : CppCore<V>(owner) {}
  void seed(const Rng& rng) { put_seed(this->dut().seed_i, rng); }
  void drive(bool check, const WideKey& key, std::uint32_t port_count) {
    V& d = this->dut();
    d.req_op_i = check;
    put_key(d.req_key_i, key, kFlowletKeyBits);
    d.req_port_count_i = static_cast<std::uint16_t>(port_count);
  }
  FlowletResult response() const {
    const V& d = this->dut();
    return {static_cast<std::uint16_t>(d.rsp_port_o), d.rsp_new_flowlet_o != 0, static_cast<std::uint32_t>(d.rsp_index_o)};
  }
};

template <class V>
std::unique_ptr<FlowletTableIf> build(const FlowletTableConfig& c, const std::string& owner, const FlowletPoint& p) {
  return std::make_unique<RtlFlowletTable<FlowletCppPins<V>>>(c, owner, p, "rtl");
}

const std::vector<FlowletPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, entries, key_bits, port_bits) FlowletPointEntry{FlowletPoint{name, entries}, &build<model>},
  static const std::vector<FlowletPointEntry> all = {NETASIC_COSIM_FLOWLET_POINTS(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::vector<std::string> rtl_flowlet_table_points() {
  std::vector<std::string> out;
  for (const auto& p : points()) out.push_back(cosim::describe(p.info));
  return out;
}

std::unique_ptr<FlowletTableIf> make_rtl_flowlet_table(const FlowletTableConfig& config, const std::string& owner) {
  return cosim::make_flowlet_from_points(points(), "rtl", config, owner);
}

}  // namespace netasic
