// The event order a run split across processes needs (sim.event_order = causal, docs/parallel.md).
//
// The default order, (time, sequence number of the push), depends on the order in which every event of the
// fabric was pushed: a process holding part of the fabric sees only its own part of that sequence, and a
// frame from another process is pushed when a window ends, not when it was sent. The causal order uses only
// what an event's own ancestry fixes, whichever process ran it:
//   1. time;
//   2. the time of the event that scheduled it (scheduled earlier first);
//   3. the send time of the packet it carries, if any (older packet first; events without one after);
//   4. a 64-bit hash of the scheduling event's hash and how many events that one had scheduled before it.
// A call from a link into its receiver counts as one child of the sending event and the receiver's own
// pushes hash from that (Fabric::fork), so a receiver called when its window ends schedules exactly what
// it would have scheduled when the frame was sent.
#pragma once

#include <cstdint>
#include <vector>

#include "tlm/common/units.h"
#include "tlm/model/event_queue.h"

namespace netasic {

// What orders simultaneous events: the scheduling event's time and hash, and the count of its children.
struct CausalContext {
  Ps parent = 0;
  std::uint64_t hash = 0x6e657461736963ULL;  // the setup's pushes hash from this
  std::uint64_t child = 0;
};

inline std::uint64_t causal_mix(std::uint64_t h, std::uint64_t n) {
  // splitmix64's finaliser over the parent's hash and the child's number.
  std::uint64_t z = h + 0x9e3779b97f4a7c15ULL * (n + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct CausalEvent {
  Ps time;
  Ps parent;  // time of the scheduling event
  Ps sent;    // send time of the packet it carries; kNever when none
  std::uint64_t hash;
  EventTarget* target;
  std::uint64_t data;
  std::uint32_t event_kind;

  std::uint32_t kind() const { return event_kind; }
  bool before(const CausalEvent& o) const {
    if (time != o.time) return time < o.time;
    if (parent != o.parent) return parent < o.parent;
    if (sent != o.sent) return sent < o.sent;
    return hash < o.hash;
  }
};

// The calendar queue (event_queue.h) in the causal order.
using CausalQueue = CalendarQueue<CausalEvent, AsIs<CausalEvent>, false>;

}  // namespace netasic
