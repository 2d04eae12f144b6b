// switch.fgfc_generator.impl = rtl_sc: the FGFC frame generator answered by Verilator's SystemC output,
// evaluated synchronously by the adapter (fgfc_generator_rtl.h, docs/cosim.md). RtlFgfcGenerator
// (fgfc_generator_adapter.h) does the work, as for impl = rtl; this file reaches the sc_module's ports.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fgfc_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_FGFC_POINTS(_SC)
#include "tlm/cosim/fgfc_generator_adapter.h"
#include "tlm/cosim/fgfc_generator_rtl.h"
#include "tlm/cosim/sc_pins.h"

// The generated models' eval(), for ScCore (sc_pins.h).
namespace netasic::cosim {
#define NETASIC_COSIM_SC_EVAL(model, name, slots, gap) NETASIC_COSIM_SC_EXPOSE_EVAL(model)
NETASIC_COSIM_FGFC_POINTS_SC(NETASIC_COSIM_SC_EVAL)
#undef NETASIC_COSIM_SC_EVAL
}  // namespace netasic::cosim

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class FgfcScPins : public ScCore<V> {
 public:
  FgfcScPins(const std::string& owner, const FgfcPoint& point)
      : ScCore<V>("fgfc_generator (rtl_sc " + std::string(point.name) + ", " + owner + ")", "fgfc_generator_rtl_sc") {
    V& d = this->dut();
    d.req_flow_id_i.bind(req_flow_id_i_);
    d.req_xoff_i.bind(req_xoff_i_);
    d.req_period_i.bind(req_period_i_);
    d.req_credit_i.bind(req_credit_i_);
    d.rsp_status_o.bind(rsp_status_o_);
    d.frm_valid_o.bind(frm_valid_o_);
    d.frm_ready_i.bind(frm_ready_i_);
    d.frm_flow_id_o.bind(frm_flow_id_o_);
    d.frm_xoff_o.bind(frm_xoff_o_);
    d.frm_period_o.bind(frm_period_o_);
    d.frm_credit_o.bind(frm_credit_o_);
    this->seal();
  }
  ~FgfcScPins() { this->destroy(); }  // the model goes before the wires its ports are bound to
  void drive(const FgfcFrame& f) {
    put(req_flow_id_i_, f.flow_id);
    req_xoff_i_.write(f.xoff);
    put(req_period_i_, f.period);
    put(req_credit_i_, f.credit);
  }
  unsigned status() const { return get(rsp_status_o_); }
  void frame_ready(bool r) { frm_ready_i_.write(r); }
  bool frame_valid() const { return frm_valid_o_.read(); }
  FgfcFrame frame() const {
    return {get(frm_flow_id_o_), frm_xoff_o_.read(), static_cast<std::uint16_t>(get(frm_period_o_)),
            get(frm_credit_o_)};
  }

 private:
  NETASIC_SC_WIRE(req_flow_id_i)
  NETASIC_SC_WIRE(req_xoff_i)
  NETASIC_SC_WIRE(req_period_i)
  NETASIC_SC_WIRE(req_credit_i)
  NETASIC_SC_WIRE(rsp_status_o)
  NETASIC_SC_WIRE(frm_valid_o)
  NETASIC_SC_WIRE(frm_ready_i)
  NETASIC_SC_WIRE(frm_flow_id_o)
  NETASIC_SC_WIRE(frm_xoff_o)
  NETASIC_SC_WIRE(frm_period_o)
  NETASIC_SC_WIRE(frm_credit_o)
};

template <class V>
std::unique_ptr<FgfcGeneratorIf> build(const FgfcGeneratorConfig& c, const std::string& owner, const FgfcPoint& p) {
  return std::make_unique<RtlFgfcGenerator<FgfcScPins<V>>>(c, owner, p, "rtl_sc");
}

const std::vector<FgfcPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, slots, gap) FgfcPointEntry{FgfcPoint{name, slots, gap}, &build<model>},
  static const std::vector<FgfcPointEntry> all = {NETASIC_COSIM_FGFC_POINTS_SC(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::unique_ptr<FgfcGeneratorIf> make_rtl_sc_fgfc_generator(const FgfcGeneratorConfig& config,
                                                            const std::string& owner) {
  return cosim::make_fgfc_from_points(points(), "rtl_sc", config, owner);
}

}  // namespace netasic
