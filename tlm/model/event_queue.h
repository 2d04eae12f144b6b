// The fabric's own event queue, ordered by (time, sequence number).
//
// Why not one sc_event per port: SystemC 2.3's timed-event queue is a binary heap of pointers compared
// through a function pointer; with thousands of pending events its heapify dominates the run (see
// docs/architecture.md). Packet-level events live here instead, and one SC_METHOD drains them.
//
// Structure: a calendar queue. Almost every event is scheduled less than a microsecond or two ahead
// (serialization, propagation, pipeline latency), so time is cut into buckets of 2^kBucketShift ps in a
// ring of buckets; a push appends to its bucket (O(1)); when the run reaches a bucket, its
// events are sorted and taken in order. Events beyond the ring's horizon wait in a 4-ary heap and move
// into the ring as it reaches them. The sequence number makes simultaneous events run in scheduling order,
// so a run is deterministic whatever the bucket layout.
//
// The ring's horizon is a trade: every slot of the ring is written once per turn, so the memory a turn
// walks through grows with the horizon times the event rate (16.8 us spilled out of the caches on a
// 1024-host fabric); events beyond it take the slower far heap. The fabric sizes the ring from the
// longest per-hop delay of the network it runs (for_horizon), 2.1 us when not told.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "tlm/common/units.h"

namespace netasic {

class EventTarget;

// 32 bytes, two to a cache line. `key` is the sequence number shifted left by 8 with the kind in the low
// byte: sequence numbers are unique, so (time, key) orders events exactly as (time, seq).
struct Event {
  Ps time;
  std::uint64_t key;
  EventTarget* target;
  std::uint64_t data;  // a Packet* or an integer argument, by kind

  std::uint32_t kind() const { return static_cast<std::uint32_t>(key & 0xff); }
  std::uint64_t seq() const { return key >> 8; }
  bool before(const Event& o) const { return time < o.time || (time == o.time && key < o.key); }
};

// A prefetch hook's read of a line the next event uses first, where reading it measured faster than
// prefetching it (docs/performance.md, "Reads instead of prefetches"): the load is kept, its value unused.
inline void read_line(const void* p) {
  const std::uint8_t v = *static_cast<const volatile std::uint8_t*>(p);
  asm volatile("" : : "r"(v));
}

class EventTarget {
 public:
  virtual ~EventTarget() = default;
  virtual void on_event(std::uint32_t kind, std::uint64_t data) = 0;
  // Called for the two events after the current one while it runs, the later one first (step 1, then
  // step 0 one event later): prefetch what the event will touch. At step 1 the fabric has already
  // prefetched the target and, for events carrying one, the packet; at step 0 what step 1 prefetched is
  // there too. With three steps (Fabric::set_prefetch_steps) the third event after the current one gets
  // step 2 first; a target with nothing to add there returns. Reads only; must change nothing.
  virtual void prefetch(std::uint32_t /*kind*/, std::uint64_t /*data*/, unsigned /*step*/) const {}
  // The send time of the packet an event of `kind` carries in `data`, kNever for an event without one (the
  // causal order, causal_queue.h: older packets first among simultaneous events).
  virtual Ps event_packet_sent(std::uint32_t /*kind*/, std::uint64_t /*data*/) const { return kNever; }
};

// A 4-ary min-heap of events (for the far future); E has a time and before().
template <class E>
class BasicEventHeap {
 public:
  void push(const E& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const E& top() const { return heap_.front(); }
  E pop() {
    E e = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return e;
  }
  // Takes ownership of `events` (any order) and makes a heap of them.
  void assign(std::vector<E>& events) {
    heap_.swap(events);
    events.clear();
    if (heap_.size() > 1)
      for (std::size_t i = (heap_.size() - 2) / kArity + 1; i-- > 0;) sift_down(i);
  }
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  static constexpr std::size_t kArity = 4;
  void sift_up(std::size_t i) {
    E e = heap_[i];
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
    E e = heap_[i];
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
  std::vector<E> heap_;
};

// The calendar queue, for events of type E (Event, or the causal order's CausalEvent): E has a `time` and
// before(); `kPushedInOrder`: an event pushed later never goes before an earlier-pushed one of the same time
// (the sequence number), so a push into the bucket being run compares times only.
template <class E, bool kPushedInOrder>
class CalendarQueue {
 public:
  // 256 ps buckets hold a handful of events even on a 1024-host fabric at full load.
  static constexpr unsigned kBucketShift = 8;
  static constexpr std::size_t kDefaultBuckets = 1 << 13;  // about 2.1 us
  static constexpr std::size_t kMinBuckets = 1 << 10, kMaxBuckets = 1 << 16;
  static constexpr std::uint32_t kMaxKind = 0xff;

  // A power of two of buckets, kMinBuckets..kMaxBuckets.
  explicit CalendarQueue(std::size_t buckets = kDefaultBuckets)
      : buckets_(buckets), count_(buckets, 0), slots_(buckets), spill_(buckets) {}
  // Not copied: the bucket being run is held by pointers into the queue's own buffer.
  CalendarQueue(const CalendarQueue&) = delete;
  CalendarQueue& operator=(const CalendarQueue&) = delete;
  // The ring size whose horizon covers `horizon_ps` (clamped to kMinBuckets..kMaxBuckets).
  static std::size_t for_horizon(Ps horizon_ps) {
    std::size_t n = kMinBuckets;
    while (n < kMaxBuckets && (Ps{n} << kBucketShift) < horizon_ps) n <<= 1;
    return n;
  }
  std::size_t buckets() const { return buckets_; }

  // Always inlined, and the event's address is never taken on the ring's paths (a spill block's slot is
  // found out of line, the event stored here): the caller's event is then built in registers and stored
  // straight into its slot. Built on the stack field by field and reloaded in two 16-byte halves, it
  // stalled each push on a store-to-load forward that fails, until the stores before it (often to a cold
  // bucket) had drained.
  __attribute__((always_inline)) void push_event(const E& e) {
    const Ps time = e.time;
    const std::uint64_t b = time >> kBucketShift;
    ++size_;
    if (b <= current_) {
      // Into the bucket being run (an event is never scheduled before the current time). Pushed in order,
      // it goes after every event of the same or an earlier time.
      if (end_ == room_end_) make_room();
      E* j = end_++;
      while (j > cur_ && (kPushedInOrder ? time < j[-1].time : e.before(j[-1]))) {
        *j = j[-1];
        --j;
      }
      *j = e;
    } else if (b < current_ + buckets_) {
      ring_push(b, e);
    } else {
      push_far(e);
    }
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The earliest event; the queue must not be empty.
  const E& top() {
    if (cur_ == end_) advance();
    return *cur_;
  }
  E pop() {
    if (cur_ == end_) advance();
    --size_;
    return *cur_++;
  }
  // Room for `n` events in the bucket being run before it has to grow.
  void reserve(std::size_t n) {
    if (n <= now_.size()) return;
    if (in_slots_) now_.resize(n);
    else grow_now(n - now_.size());
  }
  // The next event when it is already in the bucket being run (nothing is moved), else null.
  const E* peek_ready(std::size_t ahead = 0) const {
    return static_cast<std::size_t>(end_ - cur_) > ahead ? cur_ + ahead : nullptr;
  }

 private:
  __attribute__((always_inline)) void ring_push(std::uint64_t b, const E& e) {
    const std::size_t i = b & (buckets_ - 1);
    const std::uint32_t c = count_[i]++;
    if (c < kSlots) slots_[i].e[c] = e;
    else *spill_slot(i, c - kSlots) = e;
    ++ring_count_;
  }
  __attribute__((noinline)) void push_far(E e) { far_.push(e); }
  // Where the k-th event past bucket i's slots goes: its chain of spill blocks; a new block comes from the
  // free list, where the blocks a run has just emptied are (so it is still in cache).
  __attribute__((noinline)) E* spill_slot(std::size_t i, std::uint32_t k) {
    Spill& s = spill_[i];
    if (k % kSlots == 0) {
      std::uint32_t b;
      if (free_blocks_.empty()) {
        b = static_cast<std::uint32_t>(blocks_.size());
        blocks_.emplace_back();
        next_block_.push_back(0);
      } else {
        b = free_blocks_.back();
        free_blocks_.pop_back();
      }
      if (k == 0) s.head = b;
      else next_block_[s.tail] = b;
      s.tail = b;
    }
    return &blocks_[s.tail].e[k % kSlots];
  }
  // Makes room for `more` events after end_ in the buffer (rare: the buffer keeps its size); [cur_, end_)
  // lies in it.
  void grow_now(std::size_t more) {
    const std::size_t pos = static_cast<std::size_t>(cur_ - now_.data());
    const std::size_t end = static_cast<std::size_t>(end_ - now_.data());
    now_.resize(std::max(now_.size() * 2, end + more));
    cur_ = now_.data() + pos;
    end_ = now_.data() + end;
    room_end_ = now_.data() + now_.size();
  }
  // A push into the bucket being run found no room after it (rare). Run from its ring slots, the bucket
  // moves into the buffer; in the buffer, the buffer grows.
  void make_room() {
    if (in_slots_) {
      const std::size_t n = static_cast<std::size_t>(end_ - cur_);
      if (n >= now_.size()) now_.resize(std::max(now_.size() * 2, n + 1));
      std::copy(cur_, end_, now_.data());
      cur_ = now_.data();
      end_ = cur_ + n;
      room_end_ = now_.data() + now_.size();
      in_slots_ = false;
    }
    if (end_ == room_end_) grow_now(1);
  }
  // Moves to the next non-empty bucket and makes it the current, sorted one. A bucket within its slots is
  // run where it is (nothing is copied: the ring does not write its slots again before it comes round to
  // them, so pushes into the bucket being run take its free slots); a larger one is copied into the buffer.
  void advance() {
    for (;;) {
      if (ring_count_ == 0) {
        // Nothing in the ring: jump straight to the far heap's first bucket.
        current_ = std::max(current_ + 1, far_.top().time >> kBucketShift);
      } else {
        ++current_;
      }
      // Far events that now fall inside the ring's horizon move in (those of this bucket too).
      while (!far_.empty() && (far_.top().time >> kBucketShift) < current_ + buckets_) {
        const E e = far_.pop();
        ring_push(e.time >> kBucketShift, e);
      }
      const std::size_t i = current_ & (buckets_ - 1);
      const std::uint32_t n = count_[i];
      if (n == 0) continue;
      count_[i] = 0;
      ring_count_ -= n;
      bool sorted = false;
      if (n <= kSlots) {
        cur_ = slots_[i].e;
        end_ = cur_ + n;
        room_end_ = cur_ + kSlots;
        in_slots_ = true;
      } else {
        cur_ = end_ = now_.data();
        if (n > now_.size()) grow_now(n);
        if (kPushedInOrder && n > kInsertionSortMax) {
          sort_by_time_into(i, n, now_.data());
          sorted = true;
        } else {
          E* out = now_.data();
          for_each_in_bucket(i, n, [&out](const E& e) { *out++ = e; });
        }
        release_spill(i, n);
        end_ = cur_ + n;
        room_end_ = now_.data() + now_.size();
        in_slots_ = false;
      }
      // The buckets that follow are read in turn: start bringing in the next one's slots, and its first
      // spill block if it has one.
      const std::size_t ni = (current_ + 1) & (buckets_ - 1);
      prefetch_bucket(slots_[ni]);
      if (count_[ni] > kSlots) prefetch_bucket(blocks_[spill_[ni].head]);
      if (!sorted) sort_now();
      return;
    }
  }
  // A bucket of a queue pushed in order holds its events in push order, except that those moved in from the
  // far heap come first: in (time, sequence) order among themselves, and pushed before any event pushed
  // straight into the bucket (a push reaches the bucket only once it is inside the ring's horizon, and the
  // advance that brings it inside moves all of its far events). So simultaneous events already stand in
  // scheduling order, and a stable sort by time alone orders the bucket exactly. The bucket fixes a time's
  // upper bits: a counting sort on its low kBucketShift bits moves bucket i's n events from the slots and
  // spill blocks straight to `out`, in two passes and no comparisons (std::sort of 32-byte events was 5% of a
  // 3,456-host run).
  void sort_by_time_into(std::size_t i, std::uint32_t n, E* out) const {
    constexpr Ps kLow = (Ps{1} << kBucketShift) - 1;
    std::uint32_t at[(1 << kBucketShift) + 1] = {};
    for_each_in_bucket(i, n, [&at](const E& e) { ++at[(e.time & kLow) + 1]; });
    for (std::size_t t = 1; t <= kLow; ++t) at[t] += at[t - 1];
    for_each_in_bucket(i, n, [&at, out](const E& e) { out[at[e.time & kLow]++] = e; });
  }
  // Calls f on bucket i's n events (more than its slots) in push order: its slots, then its spill blocks.
  template <class F>
  void for_each_in_bucket(std::size_t i, std::uint32_t n, F f) const {
    for (std::uint32_t k = 0; k < kSlots; ++k) f(slots_[i].e[k]);
    n -= kSlots;
    for (std::uint32_t b = spill_[i].head;; b = next_block_[b]) {
      const std::uint32_t m = std::min<std::uint32_t>(n, kSlots);
      for (std::uint32_t k = 0; k < m; ++k) f(blocks_[b].e[k]);
      n -= m;
      if (n == 0) return;
    }
  }
  // Frees the spill blocks of bucket i, which held n events (more than its slots), first block first.
  void release_spill(std::size_t i, std::uint32_t n) {
    std::uint32_t b = spill_[i].head;
    for (std::uint32_t m = n - kSlots;; b = next_block_[b]) {
      free_blocks_.push_back(b);
      if (m <= kSlots) return;
      m -= kSlots;
    }
  }
  static constexpr std::size_t kInsertionSortMax = 32;
  void sort_now() {
    E* const first = cur_;
    const std::size_t n = static_cast<std::size_t>(end_ - first);
    if (n > kInsertionSortMax) {
      // Large buckets are mostly simultaneous events scheduled in order (a burst of flow starts).
      if (std::is_sorted(first, end_, [](const E& a, const E& b) { return a.before(b); })) return;
      std::sort(first, end_, [](const E& a, const E& b) { return a.before(b); });
      return;
    }
    // A bucket holds a few events, mostly in order already: insertion sort.
    for (std::size_t i = 1; i < n; ++i) {
      const E e = first[i];
      std::size_t j = i;
      while (j > 0 && e.before(first[j - 1])) {
        first[j] = first[j - 1];
        --j;
      }
      first[j] = e;
    }
  }

  std::size_t buckets_;  // ring size, a power of two
  // The ring: per bucket, its event count (a small dense array that stays in cache), its first kSlots
  // events in a fixed block of one array (so a push writes one line and the run reads the buckets in
  // address order), and any further events in a chain of spill blocks of kSlots events (on small fabrics
  // rare; from a few thousand hosts on, most buckets spill).
  static constexpr std::uint32_t kSlots = 8;
  struct alignas(64) Bucket {
    E e[kSlots];
  };
  static void prefetch_bucket(const Bucket& b) {
    for (std::size_t line = 0; line < sizeof(Bucket); line += 64)
      __builtin_prefetch(reinterpret_cast<const char*>(&b) + line);
  }
  std::vector<std::uint32_t> count_;
  std::vector<Bucket> slots_;
  struct Spill {
    std::uint32_t head = 0, tail = 0;  // first and last spill block of the bucket (valid when it spills)
  };
  std::vector<Spill> spill_;
  std::vector<Bucket> blocks_;               // spill blocks, shared by all buckets
  std::vector<std::uint32_t> next_block_;    // the block after each one in its bucket's chain
  std::vector<std::uint32_t> free_blocks_;   // a stack: the last freed is the first taken
  // The bucket being run, sorted, in [cur_, end_): in its own ring slots when it fits them, else in the
  // buffer now_ (whose size is its capacity); *cur_ is next.
  std::vector<E> now_;
  E* cur_ = nullptr;
  E* end_ = nullptr;
  E* room_end_ = nullptr;  // where pushes into the bucket being run must stop (its slots' or now_'s end)
  bool in_slots_ = false;  // [cur_, end_) lies in the bucket's ring slots, not in now_
  BasicEventHeap<E> far_;
  std::uint64_t current_ = 0;  // absolute index of the bucket being run
  std::size_t ring_count_ = 0;
  std::size_t size_ = 0;
};

using EventHeap = BasicEventHeap<Event>;

// The default order: (time, sequence number of the push).
class EventQueue : public CalendarQueue<Event, true> {
 public:
  using CalendarQueue::CalendarQueue;
  void push(Ps time, EventTarget* target, std::uint32_t kind, std::uint64_t data) {
    push_event(Event{time, (seq_++ << 8) | (kind & kMaxKind), target, data});
  }

 private:
  std::uint64_t seq_ = 0;
};

}  // namespace netasic
