// Huge-page memory and the packet pool built on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <set>
#include <stdexcept>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "tlm/common/huge_pages.h"
#include "tlm/model/packet.h"
#include "tlm/model/packet_ring.h"

namespace netasic {
namespace {

// A control queue's ring against a plain FIFO: pushes and pops interleaved so the ring wraps before each
// growth, up to a limit that is not a power of two (8, 16, 32, then 40).
TEST(PacketRing, GrowsToItsLimitKeepingOrderAcrossWraps) {
  std::vector<Packet> packets(200);
  PacketRing ring(40);
  std::deque<Packet*> fifo;
  EXPECT_EQ(ring.capacity(), PacketRing::kFirst);
  std::size_t next = 0;
  for (int round = 0; round < 6; ++round) {
    // Fill to the limit two pushes to one pop, then drain all but a few.
    while (!ring.full()) {
      ring.push_back(&packets[next % packets.size()]);
      fifo.push_back(&packets[next++ % packets.size()]);
      if (next % 2 == 0 && !ring.empty()) {
        ASSERT_EQ(ring.front(), fifo.front());
        ring.pop_front();
        fifo.pop_front();
      }
      ASSERT_EQ(ring.size(), fifo.size());
      ASSERT_LE(ring.size(), ring.capacity());
    }
    EXPECT_EQ(ring.size(), 40u);
    EXPECT_EQ(ring.capacity(), 40u);
    while (ring.size() > 3u) {
      ASSERT_EQ(ring.front(), fifo.front());
      ring.pop_front();
      fifo.pop_front();
    }
  }
  while (!ring.full()) {
    ring.push_back(&packets[next % packets.size()]);
    fifo.push_back(&packets[next++ % packets.size()]);
  }
  EXPECT_THROW(ring.push_back(&packets[0]), std::logic_error);  // the caller checks full() first
  ring.raise_limit(50);  // what a switch does for its RESUME frames
  EXPECT_FALSE(ring.full());
  ring.push_back(&packets[next % packets.size()]);
  fifo.push_back(&packets[next++ % packets.size()]);
  EXPECT_EQ(ring.capacity(), 50u);
  while (!ring.empty()) {
    ASSERT_EQ(ring.front(), fifo.front());
    ring.pop_front();
    fifo.pop_front();
  }
  EXPECT_TRUE(fifo.empty());
}

TEST(PacketRing, ALimitBelowTheFirstRingIsTheRing) {
  PacketRing ring(2);
  EXPECT_EQ(ring.capacity(), 2u);
  Packet a, b;
  ring.push_back(&a);
  ring.push_back(&b);
  EXPECT_TRUE(ring.full());
  EXPECT_EQ(ring.front(), &a);
}

TEST(HugePages, AllocateHugeIsAlignedToTwoMiBAndUsable) {
  const std::size_t bytes = 3 * 1000 * 1000;
  auto* p = static_cast<unsigned char*>(allocate_huge(bytes));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20), 0u);
  std::memset(p, 0xab, bytes);
  EXPECT_EQ(p[0], 0xab);
  EXPECT_EQ(p[bytes - 1], 0xab);
  free_huge(p);
}

TEST(HugePages, UseHugePagesSaysWhatItDid) {
  std::vector<char> block(8 << 20, 1);  // something on the heap to find
  const std::string account = use_huge_pages();
  EXPECT_EQ(account.rfind("huge pages:", 0), 0u) << account;
  EXPECT_EQ(block[12345], 1);
}

TEST(HugePages, TheReservationStaysAtTheHeapsTopForTheModel) {
  prepare_huge_page_heap();
  constexpr std::size_t kReserve = std::size_t{96} << 20;
  const std::string account = reserve_huge_page_heap(kReserve);
  if (account == "huge pages: no reservation on this platform") GTEST_SKIP() << account;
  ASSERT_NE(account.find("reserved and marked"), std::string::npos) << account;
#if defined(__GLIBC__)
  // Given back to the heap's top, not to the kernel (the top pad alone would keep 64 MiB): what the model
  // allocates next comes from it.
  EXPECT_GE(mallinfo2().keepcost, kReserve - (std::size_t{2} << 20));
#endif
  // Asked again with the top holding it already: nothing more.
  EXPECT_EQ(reserve_huge_page_heap(std::size_t{1} << 20), "huge pages: the heap's top already holds the reservation");
#if defined(__GLIBC__)
  // Above 2 GiB (65,536 hosts take 4 GiB) the heap grows in several steps; untouched, it costs no memory.
  constexpr std::size_t kLarge = std::size_t{5} << 29;
  EXPECT_NE(reserve_huge_page_heap(kLarge).find("reserved and marked"), std::string::npos);
  EXPECT_GE(mallinfo2().keepcost, kLarge);
#endif
}

TEST(HugePages, TheHeapAtAnySizeOtherAnonymousMemoryUpToOneGiB) {
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  EXPECT_TRUE(wants_huge_pages("rw-p", 0, "[heap]", 6 * kGiB));  // the heap of 65,536 hosts
  EXPECT_TRUE(wants_huge_pages("rw-p", 0, "[heap]", 2 << 20));
  EXPECT_TRUE(wants_huge_pages("rw-p", 0, "", kGiB));
  EXPECT_FALSE(wants_huge_pages("rw-p", 0, "", kGiB + (2 << 20)));  // a reservation
  EXPECT_FALSE(wants_huge_pages("r--p", 0, "[heap]", 2 << 20));
  EXPECT_FALSE(wants_huge_pages("rw-s", 0, "", 2 << 20));
  EXPECT_FALSE(wants_huge_pages("rw-p", 1234, "/usr/lib/libsystemc.so", 2 << 20));
  EXPECT_FALSE(wants_huge_pages("rw-p", 0, "[stack]", 2 << 20));
  EXPECT_FALSE(wants_huge_pages("rw-p", 0, "[heap]", 0));
}

TEST(PacketPool, HandsOutDistinctCleanPacketsAcrossChunksAndReusesReturnedOnes) {
  PacketPool pool(100);  // small chunks: 250 packets span three
  std::set<Packet*> seen;
  std::vector<Packet*> held;
  for (int k = 0; k < 250; ++k) {
    Packet* p = pool.get();
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
    EXPECT_EQ(p->size_bytes, 0u);
    EXPECT_EQ(p->next, nullptr);
    EXPECT_TRUE(seen.insert(p).second);
    p->size_bytes = 1500;
    held.push_back(p);
  }
  EXPECT_EQ(pool.in_use(), 250u);
  EXPECT_EQ(pool.capacity(), 300u);
  Packet* back = held.back();
  pool.put(back);
  Packet* again = pool.get();
  EXPECT_EQ(again, back);
  EXPECT_EQ(again->size_bytes, 0u);  // handed out clean
  EXPECT_EQ(pool.capacity(), 300u);
}

}  // namespace
}  // namespace netasic
