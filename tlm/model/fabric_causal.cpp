// The fabric's run loop under the causal order (sim.event_order = causal; causal_queue.h, docs/parallel.md).
#include <fmt/format.h>

#include "tlm/common/error.h"
#include "tlm/model/fabric.h"

namespace netasic {

void Fabric::use_causal_order(Ps window_ps) {
  if (window_ps == 0) throw InputError("sim.event_order = causal: the window must be longer than 0 ps");
  causal_queue_ = std::make_unique<CausalQueue>(queue_.buckets());
  causal_ = causal_queue_.get();
  window_ps_ = window_ps;
}

void Fabric::schedule_causal(Ps at, EventTarget* target, std::uint32_t kind, std::uint64_t data) {
  ++ctx_.child;
  causal_->push_event(CausalEvent{at, ctx_.parent, target->event_packet_sent(kind, data), causal_mix(ctx_.hash, ctx_.child),
                            target, data, kind});
}

// Windows: one opens at the earliest pending event and ends `window_ps_` later; when every event before its end
// has run, the listener hands over what crossed between parts of the fabric (all of it due at or after the
// end), and a stop requested during the window takes effect.
void Fabric::run_causal_events() {
  const Ps horizon = sc_core::sc_time_stamp().value() + quantum_;
  running_ = true;
  while (!stop_) {
    if (window_open_ && (causal_->empty() || causal_->top().time >= window_end_)) {
      window_open_ = false;
      if (window_listener_) window_listener_->end_window(window_end_);
      if (stop_at_window_) stop_ = true;
      continue;
    }
    if (causal_->empty()) break;
    const CausalEvent& top = causal_->top();
    if (top.time > horizon) break;
    if (top.time > time_limit_) {
      hit_limit_ = true;
      stop_ = true;
      break;
    }
    if (!window_open_) {
      window_open_ = true;
      window_end_ = top.time + window_ps_;
    }
    const CausalEvent e = causal_->pop();
    now_ = e.time;
    ctx_ = CausalContext{e.time, e.hash, 0};
    prefetch_ahead(*causal_);
    e.target->on_event(e.kind(), e.data);
    count_event();
  }
  end_activation();
}

}  // namespace netasic
