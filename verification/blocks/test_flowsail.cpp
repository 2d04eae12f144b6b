#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "tlm/blocks/flowsail.h"
#include "tlm/blocks/hash.h"
#include "tlm/common/error.h"

namespace netasic {
namespace {

FlowsailConfig small() {
  FlowsailConfig c;
  c.queues = 4;  // 3 normal + rsvQ
  c.nft_entries = 4;
  c.cft_entries = 2;
  c.q_low = 1000;
  c.q_high = 3000;
  c.size_bits = 16;
  c.pause_bits = 4;
  return c;
}

TEST(Flowsail, SFairIsShiftByCeilLog2) {
  EXPECT_EQ(Flowsail::s_fair(1024, 1), 1024u);
  EXPECT_EQ(Flowsail::s_fair(1024, 2), 512u);
  EXPECT_EQ(Flowsail::s_fair(1024, 3), 256u);  // rounded up: 3 flows share as if 4
  EXPECT_EQ(Flowsail::s_fair(1024, 4), 256u);
  EXPECT_EQ(Flowsail::s_fair(1024, 5), 128u);
}

TEST(Flowsail, RejectsBadParameters) {
  Rng rng;
  auto c = small();
  c.queues = 1;
  EXPECT_THROW(Flowsail(c, rng), InputError);
  c = small();
  c.nft_entries = 6;
  EXPECT_THROW(Flowsail(c, rng), InputError);
  c = small();
  c.q_low = 5000;
  EXPECT_THROW(Flowsail(c, rng), InputError);
}

// Distinct fids that do not collide in the NFT of `t`.
std::vector<std::uint32_t> distinct(const Flowsail& t, unsigned n) {
  std::vector<std::uint32_t> out;
  std::map<std::uint32_t, bool> used;
  for (std::uint32_t f = 1; out.size() < n; ++f)
    if (!used[t.nft_index(f)]) {
      used[t.nft_index(f)] = true;
      out.push_back(f);
    }
  return out;
}

TEST(Flowsail, EmptyQueueFirstThenSameQueueForOldFlow) {
  Rng rng(1, 1);
  Flowsail fs(small(), rng);
  const auto f = distinct(fs, 3);
  EXPECT_EQ(fs.enqueue(f[0], 100).queue, 0u);
  EXPECT_EQ(fs.enqueue(f[1], 100).queue, 1u);
  EXPECT_EQ(fs.enqueue(f[0], 100).queue, 0u);  // old flow keeps its queue
  EXPECT_EQ(fs.enqueue(f[2], 100).queue, 2u);
  EXPECT_EQ(fs.queue_length(0), 200u);
  EXPECT_EQ(fs.flow_num(0), 1u);
  // All normal queues busy: a new flow goes to a random normal queue, never rsvQ.
  auto g = fs.nft_index(f[0]);
  std::uint32_t nf = 1000;
  while (fs.nft_index(nf) == g || fs.nft_index(nf) == fs.nft_index(f[1]) || fs.nft_index(nf) == fs.nft_index(f[2])) ++nf;
  EXPECT_LT(fs.enqueue(nf, 10).queue, 3u);
}

TEST(Flowsail, HighThresholdMarksEveryPacketAndPausesOnce) {
  Rng rng;
  Flowsail fs(small(), rng);
  const auto f = distinct(fs, 1)[0];
  auto r = fs.enqueue(f, 3000);
  EXPECT_FALSE(r.congested);  // 3000 is not above Qh
  r = fs.enqueue(f, 10);
  EXPECT_TRUE(r.congested);
  EXPECT_TRUE(r.pause);  // pauseNum 0 -> 1
  r = fs.enqueue(f, 10);
  EXPECT_TRUE(r.congested);
  EXPECT_FALSE(r.pause);  // 1 -> 2: no second PAUSE
  EXPECT_FALSE(fs.dequeue(f, 0, 10, true).resume);  // 2 -> 1
  EXPECT_TRUE(fs.dequeue(f, 0, 10, true).resume);   // 1 -> 0: RESUME
  EXPECT_EQ(fs.pauses(), 1u);
  EXPECT_EQ(fs.resumes(), 1u);
}

TEST(Flowsail, LowThresholdMarksOnlyFlowsAboveFairShare) {
  Rng rng;
  auto c = small();
  c.queues = 2;  // one normal queue: both flows share it
  Flowsail fs(c, rng);
  const auto f = distinct(fs, 2);
  fs.enqueue(f[0], 900);
  fs.enqueue(f[1], 100);
  // Q = 1100 > Ql, flowNum 2: S_fair = 550. f[1] holds 200 after this packet: not marked.
  auto r = fs.enqueue(f[1], 100);
  EXPECT_FALSE(r.congested);
  r = fs.enqueue(f[0], 100);  // f[0] holds 1000 > S_fair 600
  EXPECT_TRUE(r.congested);
  EXPECT_TRUE(r.pause);
}

TEST(Flowsail, PauseNumSaturatesWithoutLosingBalance) {
  Rng rng;
  auto c = small();
  c.pause_bits = 2;  // pauseNum 0..3
  c.q_high = 0;
  c.q_low = 0;
  Flowsail fs(c, rng);
  const auto f = distinct(fs, 1)[0];
  int marked = 0;
  for (int i = 0; i < 5; ++i) marked += fs.enqueue(f, 1).congested;
  EXPECT_EQ(marked, 3);
  EXPECT_EQ(fs.pause_saturations(), 2u);
  int resumes = 0;
  for (int i = 0; i < 5; ++i) resumes += fs.dequeue(f, 0, 1, i < 3).resume;
  EXPECT_EQ(resumes, 1);
}

TEST(Flowsail, ControlFramesIsolateAndRelease) {
  Rng rng;
  Flowsail fs(small(), rng);
  const auto f = distinct(fs, 1)[0];
  fs.enqueue(f, 100);  // buffered in queue 0
  auto c = fs.control(f, true);
  EXPECT_EQ(c.status, FlowsailStatus::ok);
  EXPECT_EQ(c.paused_queues, (1u << 3) | 1u);  // rsvQ and the original queue (in-order support)
  EXPECT_TRUE(fs.in_cft(f));
  EXPECT_EQ(fs.enqueue(f, 50).queue, 3u);  // congested flow goes to rsvQ
  EXPECT_EQ(fs.dequeue(f, 0, 100, false).status, FlowsailStatus::ok);
  c = fs.control(f, false);
  EXPECT_EQ(c.paused_queues, 0u);
  EXPECT_TRUE(fs.in_cft(f));  // still has bytes in rsvQ
  EXPECT_EQ(fs.dequeue(f, 3, 50, false).status, FlowsailStatus::ok);
  EXPECT_FALSE(fs.in_cft(f));  // resumed and empty: released
  EXPECT_EQ(fs.control(f, false).status, FlowsailStatus::not_found);
  EXPECT_EQ(fs.dequeue(f, 3, 1, false).status, FlowsailStatus::not_found);
  // A second flow hashing to the occupied CFT entry cannot be isolated.
  fs.control(f, true);
  std::uint32_t g = f + 1;
  while (fs.cft_index(g) != fs.cft_index(f)) ++g;
  EXPECT_EQ(fs.control(g, true).status, FlowsailStatus::cft_collision);
  EXPECT_EQ(fs.cft_collisions(), 1u);
}

// Random traffic: bytes are conserved per queue, flowNum equals the entries holding bytes of the queue,
// PAUSE and RESUME balance once every packet has left.
TEST(Flowsail, RandomInvariants) {
  Rng rng(5, 5), traffic(5, 6);
  auto c = small();
  c.pause_bits = 3;
  Flowsail fs(c, rng);
  struct Pkt {
    std::uint32_t fid, bytes;
    unsigned q;
    bool congested;
  };
  std::vector<std::deque<Pkt>> queues(c.queues);
  std::vector<std::uint64_t> bytes(c.queues, 0);
  for (int i = 0; i < 30000; ++i) {
    const auto op = traffic.below(10);
    const std::uint32_t fid = static_cast<std::uint32_t>(traffic.below(12));
    if (op < 5) {
      const std::uint32_t b = static_cast<std::uint32_t>(1 + traffic.below(400));
      auto r = fs.enqueue(fid, b);
      if (r.status != FlowsailStatus::ok) continue;
      ASSERT_LT(r.queue, c.queues);
      queues[r.queue].push_back({fid, b, r.queue, r.congested});
      bytes[r.queue] += b;
    } else if (op < 9) {
      const unsigned q = static_cast<unsigned>(traffic.below(c.queues));
      if (queues[q].empty()) continue;
      const Pkt p = queues[q].front();
      queues[q].pop_front();
      ASSERT_EQ(fs.dequeue(p.fid, p.q, p.bytes, p.congested).status, FlowsailStatus::ok);
      bytes[q] -= p.bytes;
    } else {
      fs.control(fid, traffic.below(2) == 0);
    }
    for (unsigned q = 0; q < c.queues; ++q) ASSERT_EQ(fs.queue_length(q), bytes[q]);
  }
  for (unsigned q = 0; q < c.queues; ++q)
    while (!queues[q].empty()) {
      const Pkt p = queues[q].front();
      queues[q].pop_front();
      ASSERT_EQ(fs.dequeue(p.fid, p.q, p.bytes, p.congested).status, FlowsailStatus::ok);
    }
  for (unsigned q = 0; q < c.queues; ++q) {
    EXPECT_EQ(fs.queue_length(q), 0u);
    EXPECT_EQ(fs.flow_num(q), 0u);
  }
  EXPECT_GT(fs.pauses(), 0u);
  EXPECT_EQ(fs.pauses(), fs.resumes());
  EXPECT_GT(fs.nft_collisions(), 0u);
}

}  // namespace
}  // namespace netasic
