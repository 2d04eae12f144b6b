// switch.flowsail.impl = rtl_sc: FlowSail's identifier/mapper answered by Verilator's SystemC output,
// evaluated synchronously by the adapter (flowsail_rtl.h, docs/cosim.md). RtlFlowsail (flowsail_adapter.h)
// does the work, as for impl = rtl; this file reaches the sc_module's ports.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowsail_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_FLOWSAIL_POINTS(_SC)
#include "tlm/cosim/flowsail_adapter.h"
#include "tlm/cosim/flowsail_rtl.h"
#include "tlm/cosim/sc_pins.h"

// The generated models' eval(), for ScCore (sc_pins.h).
namespace netasic::cosim {
#define NETASIC_COSIM_SC_EVAL(model, name, q, nft, cft, size, pause, flownum, deferred) \
  NETASIC_COSIM_SC_EXPOSE_EVAL(model)
NETASIC_COSIM_FLOWSAIL_POINTS_SC(NETASIC_COSIM_SC_EVAL)
#undef NETASIC_COSIM_SC_EVAL
}  // namespace netasic::cosim

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class FlowsailScPins : public ScCore<V> {
 public:
  FlowsailScPins(const std::string& owner, const FlowsailPoint& point)
      : ScCore<V>("flowsail (rtl_sc " + std::string(point.name) + ", " + owner + ")", "flowsail_rtl_sc") {
    V& d = this->dut();
    d.seed_i.bind(seed_i_);
    d.req_op_i.bind(req_op_i_);
    d.req_fid_i.bind(req_fid_i_);
    d.req_bytes_i.bind(req_bytes_i_);
    d.req_queue_i.bind(req_queue_i_);
    d.req_congested_i.bind(req_congested_i_);
    d.req_pause_i.bind(req_pause_i_);
    d.req_thr_load_i.bind(req_thr_load_i_);
    d.req_q_low_i.bind(req_q_low_i_);
    d.req_q_high_i.bind(req_q_high_i_);
    d.req_seed_load_i.bind(req_seed_load_i_);
    d.rsp_status_o.bind(rsp_status_o_);
    d.rsp_queue_o.bind(rsp_queue_o_);
    d.rsp_congested_o.bind(rsp_congested_o_);
    d.rsp_over_high_o.bind(rsp_over_high_o_);
    d.rsp_pause_o.bind(rsp_pause_o_);
    d.rsp_resume_o.bind(rsp_resume_o_);
    d.rsp_paused_queues_o.bind(rsp_paused_queues_o_);
    this->seal();
  }
  ~FlowsailScPins() { this->destroy(); }  // the model goes before the wires its ports are bound to
  void seed(const Rng& rng) { put_seed(seed_i_, rng); }
  void drive(const FlowsailRequest& r) {
    put(req_op_i_, r.op);
    put(req_fid_i_, r.fid);
    put(req_bytes_i_, r.bytes);
    put(req_queue_i_, r.queue);
    req_congested_i_.write(r.congested);
    req_pause_i_.write(r.pause);
    req_thr_load_i_.write(r.thr_load);
    put(req_q_low_i_, r.q_low);
    put(req_q_high_i_, r.q_high);
    req_seed_load_i_.write(r.seed_load);
  }
  FlowsailResponse response() const {
    FlowsailResponse r;
    r.status = get(rsp_status_o_);
    r.queue = get(rsp_queue_o_);
    r.congested = rsp_congested_o_.read();
    r.over_high = rsp_over_high_o_.read();
    r.pause = rsp_pause_o_.read();
    r.resume = rsp_resume_o_.read();
    r.paused_queues = get(rsp_paused_queues_o_);
    return r;
  }

 private:
  NETASIC_SC_WIRE(seed_i)
  NETASIC_SC_WIRE(req_op_i)
  NETASIC_SC_WIRE(req_fid_i)
  NETASIC_SC_WIRE(req_bytes_i)
  NETASIC_SC_WIRE(req_queue_i)
  NETASIC_SC_WIRE(req_congested_i)
  NETASIC_SC_WIRE(req_pause_i)
  NETASIC_SC_WIRE(req_thr_load_i)
  NETASIC_SC_WIRE(req_q_low_i)
  NETASIC_SC_WIRE(req_q_high_i)
  NETASIC_SC_WIRE(req_seed_load_i)
  NETASIC_SC_WIRE(rsp_status_o)
  NETASIC_SC_WIRE(rsp_queue_o)
  NETASIC_SC_WIRE(rsp_congested_o)
  NETASIC_SC_WIRE(rsp_over_high_o)
  NETASIC_SC_WIRE(rsp_pause_o)
  NETASIC_SC_WIRE(rsp_resume_o)
  NETASIC_SC_WIRE(rsp_paused_queues_o)
};

template <class V>
std::unique_ptr<FlowsailIf> build(const FlowsailConfig& c, Rng& rng, const std::string& owner,
                                  const FlowsailPoint& p) {
  return std::make_unique<RtlFlowsail<FlowsailScPins<V>>>(c, rng, owner, p, "rtl_sc");
}

const std::vector<FlowsailPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, q, nft, cft, size, pause, flownum, deferred) \
  FlowsailPointEntry{FlowsailPoint{name, q, nft, cft, size, pause, flownum, deferred != 0}, &build<model>},
  static const std::vector<FlowsailPointEntry> all = {NETASIC_COSIM_FLOWSAIL_POINTS_SC(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::unique_ptr<FlowsailIf> make_rtl_sc_flowsail(const FlowsailConfig& config, Rng& rng, const std::string& owner) {
  return cosim::make_flowsail_from_points(points(), "rtl_sc", config, rng, owner);
}

}  // namespace netasic
