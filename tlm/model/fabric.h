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
#include <memory>

#include "tlm/common/log_histogram.h"
#include "tlm/model/causal_queue.h"
#include "tlm/model/event_queue.h"
#include "tlm/model/packet.h"

namespace netasic {

// Told when a window of the causal order ends (sim.event_order = causal): every event before `end` has run and
// none at or after it. What crossed between parts of the fabric during the window is handed over here.
class WindowListener {
 public:
  virtual ~WindowListener() = default;
  virtual void end_window(Ps end) = 0;
  // Before a window opens: `local_next` is this fabric's earliest event (kNever: none) and `stop` whether a stop
  // was requested here. Returns where the next window starts over every part of the fabric (kNever: no part
  // has an event left) and sets `stop` when the run is to stop there. By default, what this fabric knows.
  virtual Ps next_window(Ps local_next, bool& /*stop*/) { return local_next; }
};

class Fabric : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Fabric);
  // `horizon_ps`: about the longest delay ahead at which the model schedules its events (propagation plus
  // pipeline plus serialization); it sizes the event queue's ring. 0 = the queue's default.
  Fabric(const sc_core::sc_module_name& name, Ps sync_quantum_ps, Ps horizon_ps = 0);

  Ps now() const { return now_; }
  void schedule(Ps at, EventTarget* target, std::uint32_t kind, std::uint64_t data = 0) {
    if (__builtin_expect(causal_queue_ != nullptr, 0)) return schedule_causal(at, target, kind, data);
    queue_.push(at, target, kind, data);
  }
  void schedule_in(Ps delay, EventTarget* target, std::uint32_t kind, std::uint64_t data = 0) {
    schedule(now_ + delay, target, kind, data);
  }

  // sim.event_order = causal (causal_queue.h, docs/parallel.md): simultaneous events run in an order their
  // own ancestry fixes, and the run goes in windows of `window_ps` (at most the smallest propagation delay
  // between switches): a window starts at its first event (the listener's next_window), and a stop requested
  // inside it takes effect when it ends. The whole run is one SystemC activation (no process outside the
  // model may share the fabric's time). Before the run only.
  void use_causal_order(Ps window_ps);
  bool causal() const { return causal_queue_ != nullptr; }
  // Causal order, before the run: drops every pending event whose target `keep` refuses (a run split across
  // processes keeps the events of the components this process runs).
  template <class Keep>
  void retain_events(Keep keep) {
    std::vector<CausalEvent> kept;
    while (!causal_queue_->empty()) {
      const CausalEvent e = causal_queue_->pop();
      if (keep(e.target)) kept.push_back(e);
    }
    auto fresh = std::make_unique<CausalQueue>(queue_.buckets());
    for (const CausalEvent& e : kept) fresh->push_event(e);
    causal_queue_ = std::move(fresh);
  }
  Ps window() const { return window_ps_; }
  // How many events ahead of the running one prefetch_ahead looks: 0 (off), 2 (the default) or 3. Speed only:
  // results do not depend on it. Set it before the simulation starts: the targets whose hooks differ with
  // three steps (Switch, Nic) read it at start_of_simulation.
  void set_prefetch_steps(unsigned steps) { prefetch_steps_ = static_cast<std::uint8_t>(steps == 3 ? 3 : steps ? 2 : 0); }
  unsigned prefetch_steps() const { return prefetch_steps_; }
  void set_window_listener(WindowListener* listener) { window_listener_ = listener; }
  // Causal order: the context a call from the running event into another component schedules in (counts
  // as one child of the running event); swap_context installs one and returns the one it replaces.
  CausalContext fork() {
    ++ctx_.child;
    return CausalContext{ctx_.parent, causal_mix(ctx_.hash, ctx_.child), 0};
  }
  CausalContext swap_context(const CausalContext& c) {
    const CausalContext old = ctx_;
    ctx_ = c;
    return old;
  }
  // Causal order: an event whose place among simultaneous ones is given rather than taken from the event
  // that schedules it (one that different events may schedule, whichever gets there first).
  void schedule_keyed(Ps at, Ps parent, std::uint64_t hash, EventTarget* target, std::uint32_t kind,
                      std::uint64_t data = 0) {
    causal_queue_->push_event(CausalEvent{at, parent, target->event_packet_sent(kind, data), hash, target, data, kind});
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
  // Under the causal order, at the end of the window (use_causal_order).
  void request_stop() {
    if (causal_queue_) stop_at_window_ = true;
    else stop_ = true;
  }
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
  std::size_t pending() const { return queue_.size() + (causal_queue_ ? causal_queue_->size() : 0); }

 private:
  void run_due_events();
  void run_causal_events();  // fabric_causal.cpp
  void schedule_causal(Ps at, EventTarget* target, std::uint32_t kind, std::uint64_t data);
  void wake_for_next();
  void end_activation();  // after a run of events: stops SystemC if the run is over, else wakes for the next
  // While an event runs, bring in what the next ones will touch. With two steps (Deep false): the third event
  // from here gets its target and, for events that carry a packet, the packet's first line; the second asks
  // its target for what lies behind them (EventTarget::prefetch, step 1); the next one asks for what lies
  // behind that (step 0). With three steps (Deep true) all of it moves one event further ahead: target and
  // packet of the fourth, then steps 2, 1 and 0, so that each step can read what the step before brought in.
  template <bool Deep, class Queue>
  static void look_ahead(const Queue& q) {
    const auto* next = q.peek_ready();
    if (!next) return;
    if (const auto* after = q.peek_ready(1)) {
      if (const auto* third = q.peek_ready(2)) {
        if constexpr (Deep) {
          if (const auto* fourth = q.peek_ready(3)) prefetch_event(fourth);
          third->target->prefetch(third->kind(), third->data, 2);
        } else {
          prefetch_event(third);
        }
      }
      after->target->prefetch(after->kind(), after->data, 1);
    }
    next->target->prefetch(next->kind(), next->data, 0);
  }
  template <class E>
  static void prefetch_event(const E* e) {
    __builtin_prefetch(e->target);
    // Only what looks like a pointer: an integer argument (a port number) would send the prefetch to page
    // zero, and a prefetch that misses the TLB still walks the page tables.
    if (e->data >= 4096) __builtin_prefetch(reinterpret_cast<const void*>(e->data));
  }
  template <class Queue>
  void prefetch_ahead(const Queue& q) const {
    if (prefetch_steps_ == 0) return;
    if (prefetch_steps_ == 3) look_ahead<true>(q);
    else look_ahead<false>(q);
  }
  void count_event() {
    // The wall clock is read once every 64K events, so progress costs nothing measurable.
    if ((++events_ & 0xffff) == 0 && progress_) {
      auto t = std::chrono::steady_clock::now();
      if (t - last_progress_ >= progress_interval_) {
        last_progress_ = t;
        progress_();
      }
    }
  }

  EventQueue queue_;
  std::unique_ptr<CausalQueue> causal_queue_;  // null under the default order
  CausalContext ctx_;
  Ps window_ps_ = 0;
  Ps window_end_ = 0;
  bool window_open_ = false;
  bool stop_at_window_ = false;
  WindowListener* window_listener_ = nullptr;
  PacketPool pool_;
  sc_core::sc_event wake_;
  Ps now_ = 0;
  Ps quantum_;
  Ps time_limit_ = kNever;
  TimeWindow stats_window_;
  bool stop_ = false;
  bool hit_limit_ = false;
  bool running_ = false;  // inside run_due_events
  std::uint8_t prefetch_steps_ = 2;
  std::uint64_t late_external_ = 0;
  std::uint64_t events_ = 0;
  std::function<void()> progress_;
  std::chrono::duration<double> progress_interval_{1.0};
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

}  // namespace netasic
