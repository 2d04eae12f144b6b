// The fabric's own event queue: a contiguous 4-ary min-heap ordered by (time, sequence number).
//
// Why not one sc_event per port: SystemC 2.3's timed-event queue is a binary heap of pointers compared
// through a function pointer; with thousands of pending events its heapify dominates the run (see
// docs/architecture.md). Packet-level events live here instead, and one SC_METHOD drains them.
// The sequence number makes the order of simultaneous events deterministic (FIFO in scheduling order).
#pragma once

#include <cstdint>
#include <vector>

#include "tlm/common/units.h"

namespace netasic {

class EventTarget;

struct Event {
  Ps time;
  std::uint64_t seq;
  EventTarget* target;
  std::uint64_t data;  // a Packet* or an integer argument, by kind
  std::uint32_t kind;

  bool before(const Event& o) const { return time < o.time || (time == o.time && seq < o.seq); }
};

class EventTarget {
 public:
  virtual ~EventTarget() = default;
  virtual void on_event(std::uint32_t kind, std::uint64_t data) = 0;
};

class EventQueue {
 public:
  void push(Ps time, EventTarget* target, std::uint32_t kind, std::uint64_t data) {
    heap_.push_back(Event{time, seq_++, target, data, kind});
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop() {
    Event e = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return e;
  }
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  static constexpr std::size_t kArity = 4;
  void sift_up(std::size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) / kArity;
      if (!e.before(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    Event e = heap_[i];
    for (;;) {
      std::size_t first = i * kArity + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t last = first + kArity < n ? first + kArity : n;
      for (std::size_t c = first + 1; c < last; ++c)
        if (heap_[c].before(heap_[best])) best = c;
      if (!heap_[best].before(e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace netasic
