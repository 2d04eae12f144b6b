// The fabric kernel: one SC_METHOD drains the model's own event queue.
//
// SystemC wakes the method at the time of the earliest pending model event; the method runs every event
// due by then (and, with a non-zero sync quantum, every event up to `quantum` ahead: TLM-2.0 temporal
// decoupling, for pure-model runs where no other SystemC process needs the fabric to stay in lock step).
// Components read the current time from now(), which equals sc_time_stamp() when the quantum is zero.
//
// Components outside the model meet the fabric's time through enter / leave / annotate (docs/tlm.md,
// "Time"): the fabric is never behind SystemC (a caller from its own process first brings it up to
// sc_time_stamp()) and never more than one quantum ahead of it.
#pragma once

#include <systemc>

#include <chrono>
#include <functional>

#include "tlm/common/log_histogram.h"
#include "tlm/model/event_queue.h"
#include "tlm/model/packet.h"

namespace netasic {

class Fabric : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Fabric);
  // `horizon_ps`: about the longest delay ahead at which the model schedules its events (propagation plus
  // pipeline plus serialization); it sizes the event queue's ring. 0 = the queue's default.
  Fabric(const sc_core::sc_module_name& name, Ps sync_quantum_ps, Ps horizon_ps = 0);

  Ps now() const { return now_; }
  void schedule(Ps at, EventTarget* target, std::uint32_t kind, std::uint64_t data = 0) {
    queue_.push(at, target, kind, data);
  }
  void schedule_in(Ps delay, EventTarget* target, std::uint32_t kind, std::uint64_t data = 0) {
    queue_.push(now_ + delay, target, kind, data);
  }
  PacketPool& pool() { return pool_; }

  // A call from outside the model into one of its ports, with `delay` counted from sc_time_stamp() (as
  // TLM-2.0 annotates): when it comes from another SystemC process, the fabric's time is first brought
  // up to sc_time_stamp(); returns the delay counted from now(). A time the fabric has already run past
  // (possible only for a delay below the quantum) is applied at now() and counted in late_external().
  Ps enter(const sc_core::sc_time& delay) {
    const Ps sc_now = sc_core::sc_time_stamp().value();
    if (!running_ && sc_now > now_) now_ = sc_now;
    const Ps at = sc_now + delay.value();
    if (at >= now_) return at - now_;
    ++late_external_;
    return 0;
  }
  // After such a call: from another process, wakes the fabric for the earliest event it now holds.
  void leave() {
    if (!running_) wake_for_next();
  }
  // A delay counted from now(), counted from sc_time_stamp() instead (for a component outside the model).
  sc_core::sc_time annotate(Ps delay) const {
    const Ps at = now_ + delay, sc_now = sc_core::sc_time_stamp().value();
    return sc_core::sc_time::from_value(at > sc_now ? at - sc_now : 0);
  }
  std::uint64_t late_external() const { return late_external_; }
  Ps quantum() const { return quantum_; }

  // Ends the run after the event being processed (e.g. the last flow completed).
  void request_stop() { stop_ = true; }
  bool stopped() const { return stop_; }
  // Events later than this are not run; the run ends when the queue reaches it. kNever = no limit.
  void set_time_limit(Ps limit) { time_limit_ = limit; }
  bool hit_time_limit() const { return hit_limit_; }
  // The part of the run that time-weighted statistics count (table occupancy over time: stats.window_*).
  void set_stats_window(const TimeWindow& w) { stats_window_ = w; }
  const TimeWindow& stats_window() const { return stats_window_; }

  // Called about every `interval` of wall time while the model runs (progress line).
  void set_progress(std::function<void()> callback, double interval_s) {
    progress_ = std::move(callback);
    progress_interval_ = std::chrono::duration<double>(interval_s);
  }

  std::uint64_t events() const { return events_; }
  std::size_t pending() const { return queue_.size(); }

 private:
  void run_due_events();
  void wake_for_next();

  EventQueue queue_;
  PacketPool pool_;
  sc_core::sc_event wake_;
  Ps now_ = 0;
  Ps quantum_;
  Ps time_limit_ = kNever;
  TimeWindow stats_window_;
  bool stop_ = false;
  bool hit_limit_ = false;
  bool running_ = false;  // inside run_due_events
  std::uint64_t late_external_ = 0;
  std::uint64_t events_ = 0;
  std::function<void()> progress_;
  std::chrono::duration<double> progress_interval_{1.0};
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

}  // namespace netasic
