// The fabric's run loop under the causal order (sim.event_order = causal; causal_queue.h, docs/parallel.md).
#include <fmt/format.h>

#include <algorithm>

#include "tlm/common/error.h"
#include "tlm/model/fabric.h"

namespace netasic {

void Fabric::use_causal_order(Ps window_ps) {
  if (window_ps == 0) throw InputError("sim.event_order = causal: the window must be longer than 0 ps");
  causal_queue_ = std::make_unique<CausalQueue>(queue_.buckets());
  window_ps_ = window_ps;
}

void Fabric::schedule_causal(Ps at, EventTarget* target, std::uint32_t kind, std::uint64_t data) {
  ++ctx_.child;
  causal_queue_->push_event(CausalEvent{at, ctx_.parent, target->event_packet_sent(kind, data),
                                        causal_mix(ctx_.hash, ctx_.child), target, data, kind});
}

// Windows: one opens where the listener says the earliest event of the whole fabric is and ends `window_ps_`
// later (earlier at the time limit); when every event before its end has run, the listener hands over what
// crossed between parts of the fabric (all of it due at or after the end). A stop requested during a window
// takes effect before the next one opens.
void Fabric::run_causal_events() {
  running_ = true;
  while (!stop_) {
    if (!window_open_) {
      bool stop = stop_at_window_;
      const Ps local = causal_queue_->empty() ? kNever : causal_queue_->top().time;
      const Ps next = window_listener_ ? window_listener_->next_window(local, stop) : local;
      if (stop) {
        stop_ = true;
        break;
      }
      if (next == kNever) break;
      if (next > time_limit_) {
        hit_limit_ = true;
        stop_ = true;
        break;
      }
      window_open_ = true;
      window_end_ = std::min(next + window_ps_, time_limit_ == kNever ? kNever : time_limit_ + 1);
    }
    if (causal_queue_->empty() || causal_queue_->top().time >= window_end_) {
      window_open_ = false;
      if (window_listener_) window_listener_->end_window(window_end_);
      continue;
    }
    const CausalEvent e = causal_queue_->pop();
    now_ = e.time;
    ctx_ = CausalContext{e.time, e.hash, 0};
    prefetch_ahead(*causal_queue_);
    e.target->on_event(e.kind(), e.data);
    count_event();
  }
  end_activation();
}

}  // namespace netasic
