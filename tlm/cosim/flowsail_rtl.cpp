// switch.flowsail.impl = rtl: FlowSail's identifier/mapper answered by Verilator's C++ output
// (flowsail_rtl.h, docs/cosim.md). RtlFlowsail (flowsail_adapter.h) does the work; this file reaches the
// model's ports.
#include "tlm/cosim/flowsail_rtl.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowsail_rtl_points.h"  // generated: the Verilated models, NETASIC_COSIM_FLOWSAIL_POINTS(_SC)
#include "tlm/cosim/cpp_pins.h"
#include "tlm/cosim/flowsail_adapter.h"

namespace netasic {
namespace {

using namespace cosim;

template <class V>
class FlowsailCppPins : public CppCore<V> {
 public:
  FlowsailCppPins(const std::string& owner, const FlowsailPoint&) : CppCore<V>(owner) {}
  void seed(const Rng& rng) { put_seed(this->dut().seed_i, rng); }
  void drive(const FlowsailRequest& r) {
    V& d = this->dut();
    d.req_op_i = r.op;
    d.req_fid_i = r.fid;
    d.req_bytes_i = r.bytes;
    d.req_queue_i = r.queue;
    d.req_congested_i = r.congested;
    d.req_pause_i = r.pause;
    d.req_thr_load_i = r.thr_load;
    d.req_q_low_i = r.q_low;
    d.req_q_high_i = r.q_high;
    d.req_seed_load_i = r.seed_load;
  }
  FlowsailResponse response() const {
    const V& d = this->dut();
    FlowsailResponse r;
    r.status = d.rsp_status_o;
    r.queue = d.rsp_queue_o;
    r.congested = d.rsp_congested_o != 0;
    r.over_high = d.rsp_over_high_o != 0;
    r.pause = d.rsp_pause_o != 0;
    r.resume = d.rsp_resume_o != 0;
    r.paused_queues = d.rsp_paused_queues_o;
    return r;
  }
};

template <class V>
std::unique_ptr<FlowsailIf> build(const FlowsailConfig& c, Rng& rng, const std::string& owner,
                                  const FlowsailPoint& p) {
  return std::make_unique<RtlFlowsail<FlowsailCppPins<V>>>(c, rng, owner, p, "rtl");
}

const std::vector<FlowsailPointEntry>& points() {
#define NETASIC_COSIM_POINT(model, name, q, nft, cft, size, pause, flownum, deferred) \
  FlowsailPointEntry{FlowsailPoint{name, q, nft, cft, size, pause, flownum, deferred != 0}, &build<model>},
  static const std::vector<FlowsailPointEntry> all = {NETASIC_COSIM_FLOWSAIL_POINTS(NETASIC_COSIM_POINT)};
#undef NETASIC_COSIM_POINT
  return all;
}

}  // namespace

std::unique_ptr<FlowsailIf> make_rtl_flowsail(const FlowsailConfig& config, Rng& rng, const std::string& owner) {
  return cosim::make_flowsail_from_points(points(), "rtl", config, rng, owner);
}

}  // namespace netasic
