#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tlm/blocks/reorder_buffer.h"
#include "tlm/common/error.h"
#include "tlm/common/rng.h"

namespace netasic {
namespace {

using K = ReorderEventKind;

ReorderBufferConfig small(std::uint32_t units = 4, unsigned seq_bits = 16) {
  ReorderBufferConfig c;
  c.connections = 2;
  c.seq_bits = seq_bits;
  c.buffer_units = units;
  return c;
}

TEST(ReorderBuffer, PaperFigures2To4) {
  ReorderBuffer rb(small(2));
  // Figure 3: early packets are stored, no ACK.
  EXPECT_EQ(rb.arrive(0, 2), (std::vector<ReorderEvent>{{K::stored, 2}}));
  EXPECT_EQ(rb.arrive(0, 3), (std::vector<ReorderEvent>{{K::stored, 3}}));
  // Figure 4: full; packet 1 arrives early, evicts the greatest stored (3).
  EXPECT_EQ(rb.arrive(0, 1), (std::vector<ReorderEvent>{{K::nack, 3}, {K::stored, 1}}));
  // Full, packet 4 has nothing greater to evict: only it is rejected.
  EXPECT_EQ(rb.arrive(0, 4), (std::vector<ReorderEvent>{{K::nack, 4}}));
  // Figure 2: the expected packet delivers itself and its stored followers, one cumulative ACK.
  EXPECT_EQ(rb.arrive(0, 0), (std::vector<ReorderEvent>{{K::deliver, 0}, {K::deliver, 1}, {K::deliver, 2}, {K::ack, 2}}));
  EXPECT_EQ(rb.expected(0), 3u);
  EXPECT_EQ(rb.used_units(0), 0u);
  EXPECT_EQ(rb.arrive(0, 1), (std::vector<ReorderEvent>{{K::ack, 2}}));  // duplicate: re-ACK
  EXPECT_EQ(rb.rejections(), 2u);
  EXPECT_EQ(rb.mbs(), 2u);
  EXPECT_EQ(rb.expected(1), 0u);  // connections are independent
}

TEST(ReorderBuffer, SequenceNumbersWrap) {
  ReorderBuffer rb(small(2, 3));  // 3-bit sequence numbers
  for (std::uint32_t sn = 0; sn < 7; ++sn) rb.arrive(0, sn);
  EXPECT_EQ(rb.expected(0), 7u);
  EXPECT_EQ(rb.arrive(0, 1), (std::vector<ReorderEvent>{{K::stored, 1}}));  // 1 is early (offset 2)
  EXPECT_EQ(rb.arrive(0, 0), (std::vector<ReorderEvent>{{K::stored, 0}}));
  EXPECT_EQ(rb.arrive(0, 7), (std::vector<ReorderEvent>{{K::deliver, 7}, {K::deliver, 0}, {K::deliver, 1}, {K::ack, 1}}));
  EXPECT_EQ(rb.arrive(0, 6), (std::vector<ReorderEvent>{{K::ack, 1}}));  // offset 4 >= half: old
  EXPECT_EQ(rb.arrive(0, 5), (std::vector<ReorderEvent>{{K::stored, 5}}));  // offset 3: early
}

TEST(ReorderBuffer, MultiUnitPacketsAndDynamicPool) {
  auto c = small(4);
  c.max_packet_units = 3;
  ReorderBuffer rb(c);
  EXPECT_EQ(rb.arrive(0, 5, 2).back().kind, K::stored);
  EXPECT_EQ(rb.arrive(0, 6, 2).back().kind, K::stored);
  // Needs 3 units: evicting 6 (2 units) is not enough, evicting 6 and 5 is.
  EXPECT_EQ(rb.arrive(0, 2, 3), (std::vector<ReorderEvent>{{K::nack, 6}, {K::nack, 5}, {K::stored, 2}}));
  c.memory = ReorderMemory::dynamic_pool;
  c.pool_units = 5;
  ReorderBuffer pool(c);
  pool.arrive(0, 1, 3);
  pool.arrive(1, 1, 2);
  EXPECT_EQ(pool.total_units(), 5u);
  EXPECT_EQ(pool.arrive(0, 2, 1), (std::vector<ReorderEvent>{{K::nack, 2}}));  // pool full
  EXPECT_EQ(pool.mms(), 5u);
  EXPECT_EQ(pool.mbs(), 3u);
  c.pool_units = 0;
  EXPECT_THROW(ReorderBuffer{c}, InputError);
}

// Sort-based reference: a source sends a window of packets in random order and retransmits every
// NACKed one; the receiver must deliver exactly 0..N-1 in order, and the buffer never exceeds its size.
TEST(ReorderBuffer, RandomDeliversInOrderAgainstSortedReference) {
  for (std::uint32_t units : {1u, 2u, 4u, 16u}) {
    auto c = small(units, 8);
    ReorderBuffer rb(c);
    Rng rng(units, 3);
    const std::uint32_t total = 3000;
    std::vector<std::uint32_t> in_flight;
    std::uint32_t next_new = 0, acked = 0;
    std::vector<std::uint32_t> delivered;
    while (acked < total) {
      while (in_flight.size() < 40 && next_new < total && next_new < acked + 100) in_flight.push_back(next_new++);
      ASSERT_FALSE(in_flight.empty());
      const std::size_t pick = rng.below(in_flight.size());
      const std::uint32_t sn = in_flight[pick];
      in_flight.erase(in_flight.begin() + static_cast<std::ptrdiff_t>(pick));
      for (const auto& e : rb.arrive(0, sn & 0xff)) {
        if (e.kind == K::deliver) delivered.push_back(static_cast<std::uint32_t>(delivered.size()) & 0xff);
        if (e.kind == K::deliver) {
          ASSERT_EQ(e.sn, delivered.back());
        }
        if (e.kind == K::ack) acked = static_cast<std::uint32_t>(delivered.size());
        if (e.kind == K::nack) {
          // NACKed sequence number maps back to the packet in the current window.
          const std::uint32_t full = acked + ((e.sn - acked) & 0xff);
          in_flight.push_back(full);
        }
      }
      ASSERT_LE(rb.used_units(0), units);
    }
    EXPECT_EQ(delivered.size(), total);
    EXPECT_EQ(rb.delivered(), total);
    EXPECT_LE(rb.mbs(), units);
    if (units < 16) {
      EXPECT_GT(rb.rejections(), 0u);
    }
  }
}

}  // namespace
}  // namespace netasic
