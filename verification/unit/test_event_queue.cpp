// The calendar event queue must pop events in exactly (time, scheduling order), like a sorted reference,
// across bucket boundaries, the ring's horizon and the far heap.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "tlm/common/rng.h"
#include "tlm/model/event_queue.h"

namespace netasic {
namespace {

struct Ref {
  Ps time;
  std::uint64_t order;
  std::uint64_t data;
};

bool runs_before(const Ref& a, const Ref& b) { return std::tie(a.time, a.order) < std::tie(b.time, b.order); }

void check_against_reference(std::uint64_t seed, Ps max_delay, int rounds,
                             std::size_t buckets = EventQueue::kDefaultBuckets, std::uint64_t max_push = 4,
                             Ps grain = 1) {
  EventQueue q(buckets);
  Rng rng(seed, 1);
  std::vector<Ref> pending;
  std::uint64_t order = 0, next_data = 0;
  Ps now = 0;
  int popped = 0;
  for (int r = 0; r < rounds; ++r) {
    // Schedule a few events relative to the current time (some at the current time itself).
    const int n = static_cast<int>(rng.below(max_push));
    for (int k = 0; k < n; ++k) {
      const Ps at = now + (rng.below(5) == 0 ? 0 : rng.below(max_delay / grain) * grain);
      q.push(at, nullptr, 0, next_data);
      pending.push_back(Ref{at, order++, next_data++});
    }
    if (!pending.empty() && rng.below(3) != 0) {
      auto it = std::min_element(pending.begin(), pending.end(), runs_before);
      ASSERT_FALSE(q.empty());
      const Event e = q.pop();
      ASSERT_EQ(e.time, it->time) << "pop " << popped;
      ASSERT_EQ(e.data, it->data) << "pop " << popped << " at " << e.time;
      now = e.time;
      pending.erase(it);
      ++popped;
    }
  }
  EXPECT_EQ(q.size(), pending.size());
  EXPECT_GT(popped, rounds / 3);
  // Then the rest, to the last event.
  std::sort(pending.begin(), pending.end(), runs_before);
  for (const Ref& want : pending) {
    ASSERT_FALSE(q.empty());
    const Event e = q.pop();
    ASSERT_EQ(e.time, want.time) << "pop " << popped;
    ASSERT_EQ(e.data, want.data) << "pop " << popped << " at " << e.time;
    ++popped;
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, MatchesSortedReferenceWithinOneBucket) { check_against_reference(1, 200, 20000); }
TEST(EventQueue, MatchesSortedReferenceAcrossBuckets) { check_against_reference(2, 50 * kPsPerNs, 20000); }
TEST(EventQueue, MatchesSortedReferenceBeyondTheRingHorizon) {
  // Delays up to 100 us reach past the ring (about 2.1 us) into the far heap.
  check_against_reference(3, 100 * kPsPerUs, 20000);
}

TEST(EventQueue, CrowdedBucketsMatchSortedReference) {
  // Up to 40 events scheduled at a time within 8 ns (32 buckets): buckets hold far more events than
  // their fixed slots, and the rest go to the overflow.
  check_against_reference(5, 8 * kPsPerNs, 5000, EventQueue::kDefaultBuckets, 41);
}

TEST(EventQueue, CrowdedBucketsWithFarEventsMatchSortedReference) {
  // Crowded buckets (up to 40 events pushed at a time) on the smallest ring (about 262 ns), with delays up
  // to 400 ns in whole nanoseconds (like clock edges): buckets of more than 32 events are sorted by time
  // alone, and many of them hold events moved in from the far heap and events pushed straight into the
  // ring at the same time, which must run in scheduling order.
  check_against_reference(6, 400 * kPsPerNs, 3000, EventQueue::kMinBuckets, 41, kPsPerNs);
}

TEST(EventQueue, SmallestRingMatchesSortedReference) {
  // 1,024 buckets cover about 262 ns: most of these events go through the far heap.
  check_against_reference(4, 2 * kPsPerUs, 20000, EventQueue::kMinBuckets);
}

TEST(EventQueue, RingSizeCoversTheHorizon) {
  EXPECT_EQ(EventQueue::for_horizon(1), EventQueue::kMinBuckets);
  EXPECT_EQ(EventQueue::for_horizon(980 * kPsPerNs), std::size_t{1} << 12);  // the reference fabric
  EXPECT_EQ(EventQueue::for_horizon(1 << 20), std::size_t{1} << 12);         // exactly 4,096 buckets of 256 ps
  EXPECT_EQ(EventQueue::for_horizon(kPsPerUs * 1000), EventQueue::kMaxBuckets);
}

TEST(EventQueue, JumpsOverLongIdleGaps) {
  EventQueue q;
  q.push(5 * kPsPerUs * 1000 * 1000, nullptr, 0, 2);  // 5 s ahead
  q.push(7, nullptr, 0, 1);
  EXPECT_EQ(q.pop().data, 1u);
  const Event e = q.pop();
  EXPECT_EQ(e.data, 2u);
  EXPECT_EQ(e.time, 5 * kPsPerUs * 1000 * 1000);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, PushesIntoTheBucketBeingRunPastItsSlots) {
  // A bucket of 3 events runs from its ring slots (8 of them); the next bucket is full. Ten more events
  // pushed at the current time fill the bucket's free slots and then move it into the buffer; none may
  // land in the next bucket's slots.
  EventQueue q;
  const Ps t = 100 * 256;
  std::uint64_t data = 0;
  for (int k = 0; k < 3; ++k) q.push(t, nullptr, 0, data++);
  for (int k = 0; k < 8; ++k) q.push(t + 256, nullptr, 0, 100 + k);
  ASSERT_EQ(q.pop().data, 0u);
  for (int k = 0; k < 10; ++k) q.push(t + 1, nullptr, 0, data++);
  std::vector<std::uint64_t> got;
  while (!q.empty()) got.push_back(q.pop().data);
  std::vector<std::uint64_t> want = {1, 2};
  for (std::uint64_t d = 3; d < 13; ++d) want.push_back(d);
  for (std::uint64_t d = 100; d < 108; ++d) want.push_back(d);
  EXPECT_EQ(got, want);
}

TEST(EventQueue, KeepsEveryFieldThroughTheRingAndTheFarHeap) {
  // The ring stores events packed (target address, kind and the time's low bits in one word): every kind,
  // targets spread over memory, and times in the bucket being run, in the ring and beyond its horizon.
  struct Target : EventTarget {
    void on_event(std::uint32_t, std::uint64_t) override {}
  };
  std::vector<Target> targets(300);
  EventQueue q(EventQueue::kMinBuckets);
  struct Want {
    Ps time;
    EventTarget* target;
    std::uint32_t kind;
    std::uint64_t data;
  };
  std::vector<Want> want;
  Rng rng(7, 1);
  for (std::uint32_t k = 0; k < 2000; ++k) {
    // Increasing times, so the expected order is the push order: steps of up to 1 us against a ring of
    // about 262 ns; all 256 kinds, each event its own target.
    const Ps t = (want.empty() ? 0 : want.back().time) + rng.below(kPsPerUs);
    Want w{t, &targets[k % targets.size()], k & 0xff, (std::uint64_t{k} << 40) | 0xabcdef};
    q.push(w.time, w.target, w.kind, w.data);
    want.push_back(w);
  }
  for (const Want& w : want) {
    ASSERT_FALSE(q.empty());
    const Event e = q.pop();
    EXPECT_EQ(e.time, w.time);
    EXPECT_EQ(e.target, w.target);
    EXPECT_EQ(e.kind(), w.kind);
    EXPECT_EQ(e.data, w.data);
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, TakesAPushBeforeTheBucketItLookedAt) {
  // The run looked at its next event (top) and stopped there; a component outside the model then pushes an
  // event at an earlier time, in an earlier bucket. It must run first, at its own time.
  EventQueue q;
  q.push(1000 * 256 + 5, nullptr, 1, 1);
  ASSERT_EQ(q.top().time, Ps{1000 * 256 + 5});
  q.push(500 * 256 + 3, nullptr, 2, 2);
  q.push(1000 * 256 + 4, nullptr, 3, 3);
  Event e = q.pop();
  EXPECT_EQ(e.time, Ps{500 * 256 + 3});
  EXPECT_EQ(e.kind(), 2u);
  e = q.pop();
  EXPECT_EQ(e.time, Ps{1000 * 256 + 4});
  EXPECT_EQ(e.data, 3u);
  e = q.pop();
  EXPECT_EQ(e.time, Ps{1000 * 256 + 5});
  EXPECT_EQ(e.data, 1u);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, RefusesATargetAddressBeyond48Bits) {
  EventQueue q;
  EXPECT_THROW(q.push(0, reinterpret_cast<EventTarget*>(std::uintptr_t{1} << 50), 0, 0), std::logic_error);
}

TEST(EventQueue, SimultaneousEventsRunInSchedulingOrder) {
  EventQueue q;
  for (std::uint64_t i = 0; i < 100; ++i) q.push(1000, nullptr, 0, i);
  for (std::uint64_t i = 0; i < 100; ++i) EXPECT_EQ(q.pop().data, i);
}

}  // namespace
}  // namespace netasic
