// The fabric's own event queue, ordered by (time, scheduling order).
//
// Why not one sc_event per port: SystemC 2.3's timed-event queue is a binary heap of pointers compared
// through a function pointer; with thousands of pending events its heapify dominates the run (see
// docs/architecture.md). Packet-level events live here instead, and one SC_METHOD drains them.
//
// Structure: a calendar queue. Almost every event is scheduled less than a microsecond or two ahead
// (serialization, propagation, pipeline latency), so time is cut into buckets of 2^kBucketShift ps in a
// ring of buckets; a push appends to its bucket (O(1)); when the run reaches a bucket, its
// events are sorted and taken in order. Events beyond the ring's horizon wait in a 4-ary heap and move
// into the ring as it reaches them. Simultaneous events run in scheduling order (a bucket keeps its
// events in push order, and the far heap numbers its own), so a run is deterministic whatever the bucket
// layout.
//
// The ring's horizon is a trade: every slot of the ring is written once per turn, so the memory a turn
// walks through grows with the horizon times the event rate (16.8 us spilled out of the caches on a
// 1024-host fabric); events beyond it take the slower far heap. The fabric sizes the ring from the
// longest per-hop delay of the network it runs (for_horizon), 2.1 us when not told.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tlm/common/units.h"

namespace netasic {

class EventTarget;

// An event as it runs (and as the far heap holds it). `key` is the kind in the low byte and, in the far
// heap, the far heap's own push number above it (its order among simultaneous far events).
struct Event {
  Ps time;
  std::uint64_t key;
  EventTarget* target;
  std::uint64_t data;  // a Packet* or an integer argument, by kind

  std::uint32_t kind() const { return static_cast<std::uint32_t>(key & 0xff); }
  bool before(const Event& o) const { return time < o.time || (time == o.time && key < o.key); }
};

// An event as the ring stores it, 16 bytes (four to a cache line): the bucket fixes the time but for its
// low 8 bits, and the target's address fits in 48 bits, which leaves the top 16 bits of its word to the
// kind and those 8 bits of time. The ring of a large fabric is read back cold, so its size is its cost.
struct PackedEvent {
  std::uint64_t head;  // target address (bits 0-47), kind (48-55), time's offset in its bucket (56-63)
  std::uint64_t data;
};

// How a calendar queue stores events of type E in its ring (the bucket being run and the far heap hold E):
// as they are, or packed (PackedEvent). low(s): the time's bits below the bucket; load(s, base): the event
// again, `base` the time its bucket starts at.
template <class E>
struct AsIs {
  using Stored = E;
  static Stored store(const E& e) { return e; }
  static E load(const Stored& s, Ps /*base*/) { return s; }
  static std::uint32_t low(const Stored& s) { return static_cast<std::uint32_t>(s.time & 0xff); }
};
struct Packed {
  using Stored = PackedEvent;
  static constexpr std::uint64_t kAddress = (std::uint64_t{1} << 48) - 1;
  static Stored store(const Event& e) {
    return PackedEvent{reinterpret_cast<std::uintptr_t>(e.target) | (e.key & 0xff) << 48 | (e.time & 0xff) << 56,
                       e.data};
  }
  static Event load(const Stored& s, Ps base) {
    return Event{base | (s.head >> 56), (s.head >> 48) & 0xff, reinterpret_cast<EventTarget*>(s.head & kAddress),
                 s.data};
  }
  static std::uint32_t low(const Stored& s) { return static_cast<std::uint32_t>(s.head >> 56); }
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
// before(); `Store` says how the ring stores them (AsIs<E> or Packed); `kPushedInOrder`: an event pushed later
// never goes before an earlier-pushed one of the same time (the default order), so a push into the bucket
// being run compares times only, and so does the sort of a bucket.
template <class E, class Store, bool kPushedInOrder>
class CalendarQueue {
  using S = typename Store::Stored;

 public:
  // 256 ps buckets hold a handful of events even on a 1024-host fabric at full load.
  static constexpr unsigned kBucketShift = 8;
  static constexpr std::size_t kDefaultBuckets = 1 << 13;  // about 2.1 us
  static constexpr std::size_t kMinBuckets = 1 << 10, kMaxBuckets = 1 << 16;
  static constexpr std::uint32_t kMaxKind = 0xff;
  static_assert(kBucketShift == 8, "a stored event keeps the time's bits below its bucket in one byte (Store::low)");

  // A power of two of buckets, kMinBuckets..kMaxBuckets.
  explicit CalendarQueue(std::size_t buckets = kDefaultBuckets)
      : buckets_(buckets), count_(buckets, 0), slots_(buckets), spill_(buckets), now_(4 * kSlots),
        cur_(now_.data()), end_(cur_), room_end_(cur_ + now_.size()) {}
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
      // Into the bucket being run (or, from outside the model, an earlier one: the run may have looked
      // ahead to a later bucket before it stopped). Pushed in order, it goes after every event of the
      // same or an earlier time.
      if (end_ == room_end_) grow_now(1);
      E* j = end_++;
      while (j > cur_ && (kPushedInOrder ? time < j[-1].time : e.before(j[-1]))) {
        *j = j[-1];
        --j;
      }
      *j = e;
    } else if (b < current_ + buckets_) {
      ring_push(b, Store::store(e));
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
    return pop_top();
  }
  // The event top() returned, right after it (nothing pushed in between).
  E pop_top() {
    --size_;
    return *cur_++;
  }
  // Room for `n` events in the bucket being run before it has to grow.
  void reserve(std::size_t n) {
    if (n > now_.size()) grow_now(n - now_.size());
  }
  // The next event when it is already in the bucket being run (nothing is moved), else null.
  const E* peek_ready(std::size_t ahead = 0) const {
    return static_cast<std::size_t>(end_ - cur_) > ahead ? cur_ + ahead : nullptr;
  }

 private:
  // The far heap keeps full events; a queue pushed in order numbers them here.
  __attribute__((noinline)) void push_far(E e) {
    if constexpr (kPushedInOrder) e.key = (far_seq_++ << 8) | (e.key & 0xff);
    far_.push(e);
  }
  __attribute__((always_inline)) void ring_push(std::uint64_t b, const S& s) {
    const std::size_t i = b & (buckets_ - 1);
    const std::uint32_t c = count_[i]++;
    if (c < kSlots) slots_[i].e[c] = s;
    else *spill_slot(i, c - kSlots) = s;
    ++ring_count_;
  }
  // Where the k-th event past bucket i's slots goes: its chain of spill blocks; a new block comes from the
  // free list, where the blocks a run has just emptied are (so it is still in cache).
  __attribute__((noinline)) S* spill_slot(std::size_t i, std::uint32_t k) {
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
  // Moves to the next non-empty bucket and makes it the current one: its events, sorted, in the buffer.
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
        ring_push(e.time >> kBucketShift, Store::store(e));
      }
      const std::size_t i = current_ & (buckets_ - 1);
      const std::uint32_t n = count_[i];
      if (n == 0) continue;
      count_[i] = 0;
      ring_count_ -= n;
      cur_ = end_ = now_.data();
      if (n > now_.size()) grow_now(n);
      const Ps base = Ps{current_} << kBucketShift;
      E* const out = now_.data();
      const bool counting = kPushedInOrder && n > kInsertionSortMax;
      if (counting) {
        sort_by_time_into(i, n, base, out);
      } else if (n <= kSlots) {
        for (std::uint32_t k = 0; k < n; ++k) out[k] = Store::load(slots_[i].e[k], base);
      } else {
        E* o = out;
        for_each_in_bucket(i, n, [&o, base](const S& s) { *o++ = Store::load(s, base); });
      }
      if (n > kSlots) release_spill(i, n);
      end_ = cur_ + n;
      room_end_ = now_.data() + now_.size();
      // The buckets that follow are read in turn: start bringing in the next one's slots, and its first
      // spill block if it has one.
      const std::size_t ni = (current_ + 1) & (buckets_ - 1);
      prefetch_bucket(slots_[ni]);
      if (count_[ni] > kSlots) prefetch_bucket(blocks_[spill_[ni].head]);
      if (!counting) sort_now();
      return;
    }
  }
  // A bucket of a queue pushed in order holds its events in push order, except that those moved in from the
  // far heap come first: in (time, push order) among themselves, and pushed before any event pushed
  // straight into the bucket (a push reaches the bucket only once it is inside the ring's horizon, and the
  // advance that brings it inside moves all of its far events). So simultaneous events already stand in
  // scheduling order, and a stable sort by time alone orders the bucket exactly. The bucket fixes a time's
  // upper bits: a counting sort on its low kBucketShift bits moves bucket i's n events from the slots and
  // spill blocks straight to `out`, in two passes and no comparisons (std::sort of 32-byte events was 5% of a
  // 3,456-host run).
  void sort_by_time_into(std::size_t i, std::uint32_t n, Ps base, E* out) const {
    constexpr std::uint32_t kLow = (1u << kBucketShift) - 1;
    std::uint32_t at[kLow + 2] = {};
    for_each_in_bucket(i, n, [&at](const S& s) { ++at[Store::low(s) + 1]; });
    for (std::size_t t = 1; t <= kLow; ++t) at[t] += at[t - 1];
    for_each_in_bucket(i, n, [&at, out, base](const S& s) { out[at[Store::low(s)]++] = Store::load(s, base); });
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
  static bool runs_before(const E& a, const E& b) { return kPushedInOrder ? a.time < b.time : a.before(b); }
  void sort_now() {
    E* const first = cur_;
    const std::size_t n = static_cast<std::size_t>(end_ - first);
    if (n > kInsertionSortMax) {
      // Large buckets are mostly simultaneous events scheduled in order (a burst of flow starts).
      if (std::is_sorted(first, end_, runs_before)) return;
      std::sort(first, end_, runs_before);
      return;
    }
    // A bucket holds a few events, mostly in order already: insertion sort (stable).
    for (std::size_t i = 1; i < n; ++i) {
      if (!runs_before(first[i], first[i - 1])) continue;  // in place already: no copy
      const E e = first[i];
      std::size_t j = i;
      do {
        first[j] = first[j - 1];
        --j;
      } while (j > 0 && runs_before(e, first[j - 1]));
      first[j] = e;
    }
  }

  std::size_t buckets_;  // ring size, a power of two
  // The ring: per bucket, its event count (a small dense array that stays in cache), its first kSlots
  // events in a fixed block of one array (so a push writes one line and the run reads the buckets in
  // address order), and any further events in a chain of spill blocks of kSlots events (on small fabrics
  // rare; from a few thousand hosts on, most buckets spill). A block is 256 bytes: 16 packed events, or 8
  // larger ones.
  static constexpr std::uint32_t kSlots = sizeof(S) <= 16 ? 16 : 8;
  struct alignas(64) Bucket {
    S e[kSlots];
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
  // The bucket being run, sorted, in [cur_, end_) of the buffer now_ (whose size is its capacity); *cur_ is
  // next.
  std::vector<E> now_;
  E* cur_;
  E* end_;
  E* room_end_;  // where pushes into the bucket being run must stop (now_'s end)
  BasicEventHeap<E> far_;
  std::uint64_t far_seq_ = 0;  // the far heap's push number (queues pushed in order)
  std::uint64_t current_ = 0;  // absolute index of the bucket being run
  std::size_t ring_count_ = 0;
  std::size_t size_ = 0;
};

using EventHeap = BasicEventHeap<Event>;

// The default order: time, then the order of the pushes. The ring stores events packed (PackedEvent), which
// needs a target address that fits in 48 bits, as user-space addresses do on x86-64 and AArch64.
class EventQueue : public CalendarQueue<Event, Packed, true> {
 public:
  using CalendarQueue::CalendarQueue;
  void push(Ps time, EventTarget* target, std::uint32_t kind, std::uint64_t data) {
    if (__builtin_expect((reinterpret_cast<std::uintptr_t>(target) & ~Packed::kAddress) != 0, 0)) wide_target();
    push_event(Event{time, kind & kMaxKind, target, data});
  }

 private:
  [[noreturn]] __attribute__((noinline, cold)) static void wide_target() {
    throw std::logic_error("event queue: an event target's address does not fit in 48 bits");
  }
};

}  // namespace netasic
