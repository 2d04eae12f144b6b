#include "tlm/model/fabric.h"

#include <algorithm>

namespace netasic {

const char* packet_type_name(PacketType t) {
  switch (t) {
    case PacketType::data: return "data";
    case PacketType::ack: return "ack";
    case PacketType::nack: return "nack";
    case PacketType::fgfc: return "fgfc";
    case PacketType::pause: return "pause";
    case PacketType::resume: return "resume";
    case PacketType::order_mark: return "order_mark";
    case PacketType::fc_ack: return "fc_ack";
    case PacketType::cnp: return "cnp";
    case PacketType::ptm: return "ptm";
    case PacketType::ptr: return "ptr";
  }
  return "unknown";
}

Fabric::Fabric(const sc_core::sc_module_name& name, Ps sync_quantum_ps, Ps horizon_ps)
    : sc_core::sc_module(name),
      queue_(horizon_ps ? EventQueue::for_horizon(horizon_ps) : EventQueue::kDefaultBuckets),
      quantum_(sync_quantum_ps) {
  queue_.reserve(1 << 16);
  SC_METHOD(run_due_events);
  sensitive << wake_;
}

void Fabric::run_due_events() {
  if (causal_queue_) return run_causal_events();
  const Ps sc_now = sc_core::sc_time_stamp().value();
  const Ps horizon = sc_now + quantum_;
  // One comparison an event: past the earlier of the two bounds, the later tests say which it was.
  const Ps bound = std::min(horizon, time_limit_);
  running_ = true;
  while (!queue_.empty() && !stop_) {
    const Event& top = queue_.top();
    if (top.time > bound) {
      if (top.time > horizon) break;
      hit_limit_ = true;
      stop_ = true;
      break;
    }
    Event e = queue_.pop_top();
    now_ = e.time;
    prefetch_ahead(queue_);
    e.target->on_event(e.kind(), e.data);
    count_event();
  }
  end_activation();
}

void Fabric::end_activation() {
  running_ = false;
  if (stop_) {
    sc_core::sc_stop();
    return;
  }
  wake_for_next();
}

void Fabric::wake_for_next() {
  if (stop_ || (causal_queue_ ? causal_queue_->empty() : queue_.empty())) return;
  // A notification earlier than the pending one replaces it; a later one is dropped (sc_event::notify).
  const Ps next = causal_queue_ ? causal_queue_->top().time : queue_.top().time;
  const Ps sc_now = sc_core::sc_time_stamp().value();
  wake_.notify(sc_core::sc_time::from_value(next > sc_now ? next - sc_now : 0));
}

}  // namespace netasic
