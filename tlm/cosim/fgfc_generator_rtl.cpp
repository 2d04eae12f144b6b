// switch.fgfc_generator.impl = rtl: the FGFC frame generator answered by Verilator's C++ output
// (fgfc_generator_rtl.h, docs/cosim.md). RtlFgfcGenerator (fgfc_generator_adapter.h) does the work; this file
// reaches the model's ports.
#include "tlm/cosim/fgfc_generator_rtl.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fgfc_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_FGFC_POINTS(_SC)
#include "tlm/cosim/cpp_pins.h"
#include "tlm/cosim/fgfc_generator_adapter.h"

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class FgfcCppPins : public CppCore<V> {
 public:
  FgfcCppPins(const std::string& owner, const FgfcPoint&) : CppCore<V>(owner) {}
  void drive(const FgfcFrame& f) {
    V& d = this->dut();
    d.req_flow_id_i = f.flow_id;
    d.req_xoff_i = f.xoff;
    d.req_period_i = f.period;
    d.req_credit_i = f.credit;
  }
  unsigned status() const { return static_cast<unsigned>(this->dut().rsp_status_o); }
  void frame_ready(bool r) { this->dut().frm_ready_i = r; }
  bool frame_valid() const { return this->dut().frm_valid_o != 0; }
  FgfcFrame frame() const {
    const V& d = this->dut();
    return {static_cast<std::uint32_t>(d.frm_flow_id_o), d.frm_xoff_o != 0, static_cast<std::uint16_t>(d.frm_period_o),
            static_cast<std::uint32_t>(d.frm_credit_o)};
  }
};

template <class V>
std::unique_ptr<FgfcGeneratorIf> build(const FgfcGeneratorConfig& c, const std::string& owner, const FgfcPoint& p) {
  return std::make_unique<RtlFgfcGenerator<FgfcCppPins<V>>>(c, owner, p, "rtl");
}

const std::vector<FgfcPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, slots, gap) FgfcPointEntry{FgfcPoint{name, slots, gap}, &build<model>},
  static const std::vector<FgfcPointEntry> all = {NETASIC_COSIM_FGFC_POINTS(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::unique_ptr<FgfcGeneratorIf> make_rtl_fgfc_generator(const FgfcGeneratorConfig& config, const std::string& owner) {
  return cosim::make_fgfc_from_points(points(), "rtl", config, owner);
}

}  // namespace netasic
