#include "tlm/model/fabric.h"

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
  const Ps sc_now = sc_core::sc_time_stamp().value();
  const Ps horizon = sc_now + quantum_;
  running_ = true;
  while (!queue_.empty() && !stop_) {
    const Event& top = queue_.top();
    if (top.time > horizon) break;
    if (top.time > time_limit_) {
      hit_limit_ = true;
      stop_ = true;
      break;
    }
    Event e = queue_.pop();
    now_ = e.time;
    // While this event runs, bring in what the next ones will touch, in three steps: the third event
    // from here gets its target and, for events that carry a packet, the packet's first line; the second
    // asks its target for what lies behind them (EventTarget::prefetch, step 1); the next one asks for
    // what lies behind that (step 0).
    if (const Event* next = queue_.peek_ready()) {
      if (const Event* after = queue_.peek_ready(1)) {
        if (const Event* third = queue_.peek_ready(2)) {
          __builtin_prefetch(third->target);
          // Only what looks like a pointer: an integer argument (a port number) would send the
          // prefetch to page zero, and a prefetch that misses the TLB still walks the page tables.
          if (third->data >= 4096) __builtin_prefetch(reinterpret_cast<const void*>(third->data));
        }
        after->target->prefetch(after->kind(), after->data, 1);
      }
      next->target->prefetch(next->kind(), next->data, 0);
    }
    e.target->on_event(e.kind(), e.data);
    // The wall clock is read once every 64K events, so progress costs nothing measurable.
    if ((++events_ & 0xffff) == 0 && progress_) {
      auto t = std::chrono::steady_clock::now();
      if (t - last_progress_ >= progress_interval_) {
        last_progress_ = t;
        progress_();
      }
    }
  }
  running_ = false;
  if (stop_) {
    sc_core::sc_stop();
    return;
  }
  wake_for_next();
}

void Fabric::wake_for_next() {
  if (stop_ || queue_.empty()) return;
  // A notification earlier than the pending one replaces it; a later one is dropped (sc_event::notify).
  const Ps next = queue_.top().time, sc_now = sc_core::sc_time_stamp().value();
  wake_.notify(sc_core::sc_time::from_value(next > sc_now ? next - sc_now : 0));
}

}  // namespace netasic
