// A switch's virtual output queues: lists of 64-byte blocks of entries, each entry what the arbiter and the
// grant read of a waiting packet, so that granting it touches no packet memory (the head packet's line was
// the most missed load of a large fabric's run: docs/performance.md, "VOQ entries beside the arbiter").
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "tlm/model/packet.h"

namespace netasic {

// The packet's address in bits 0-47 of `word` (user-space addresses fit: PacketPool checks), its egress queue
// below the output in bits 48-55, the VC it came in on in 56-63; its size now and as it arrived (the input
// buffer's share).
struct VoqEntry {
  static constexpr std::uint64_t kAddressMask = (std::uint64_t{1} << 48) - 1;
  std::uint64_t word;
  std::uint32_t size;
  std::uint32_t in_size;
  Packet* packet() const { return reinterpret_cast<Packet*>(word & kAddressMask); }
  std::uint32_t queue() const { return static_cast<std::uint32_t>(word >> 48) & 0xff; }
  std::uint8_t in_vc() const { return static_cast<std::uint8_t>(word >> 56); }
  // The entry of p, of egress queue q below its output.
  static VoqEntry of(const Packet* p, std::uint32_t q) {
    return {reinterpret_cast<std::uint64_t>(p) | std::uint64_t{q} << 48 | std::uint64_t{p->in_vc} << 56, p->size_bytes,
            p->in_size};
  }
};

// Three entries to a cache line, with the next line's address.
constexpr unsigned kVoqBlockEntries = 3;
struct alignas(64) VoqBlock {
  std::array<VoqEntry, kVoqBlockEntries> entry;
  VoqBlock* next;
};
static_assert(sizeof(VoqBlock) == 64, "a VOQ block is one cache line");

// A VOQ: its first and last entries (null when empty).
struct Voq {
  VoqEntry* head = nullptr;
  VoqEntry* tail = nullptr;
};

// The blocks of one switch's VOQs: a free list, last freed first, so that the few blocks a switch has in use
// stay in cache. Blocks never move (VOQs point into them): the list grows by whole chunks.
class VoqBlocks {
 public:
  static constexpr std::size_t kGrowth = 64;  // blocks added when the free list runs out: 4 KiB

  // n more free blocks.
  void grow(std::size_t n) {
    chunks_.emplace_back(new VoqBlock[n]);
    VoqBlock* c = chunks_.back().get();
    for (std::size_t k = n; k-- > 0;) give(&c[k]);
  }
  // p, of egress queue q below its output, joins the tail of v.
  void push(Voq& v, Packet* p, std::uint32_t q) {
    VoqEntry* e;
    if (!v.tail) {
      e = &take()->entry[0];
      v.head = e;
    } else if (!last_in_block(v.tail)) {
      e = v.tail + 1;
    } else {
      VoqBlock* b = take();
      block_of(v.tail)->next = b;
      e = &b->entry[0];
    }
    v.tail = e;
    *e = VoqEntry::of(p, q);
  }
  // The head of v (not empty) leaves it.
  void pop(Voq& v) {
    VoqEntry* e = v.head;
    if (e == v.tail) {
      give(block_of(e));
      v.head = v.tail = nullptr;
    } else if (!last_in_block(e)) {
      v.head = e + 1;
    } else {
      VoqBlock* b = block_of(e);
      v.head = &b->next->entry[0];
      give(b);
    }
  }

 private:
  static VoqBlock* block_of(const VoqEntry* e) {
    return reinterpret_cast<VoqBlock*>(reinterpret_cast<std::uintptr_t>(e) & ~std::uintptr_t{63});
  }
  static bool last_in_block(const VoqEntry* e) {
    return (reinterpret_cast<std::uintptr_t>(e) & 63) == (kVoqBlockEntries - 1) * sizeof(VoqEntry);
  }
  VoqBlock* take() {
    if (__builtin_expect(!free_, 0)) grow(kGrowth);
    VoqBlock* b = free_;
    free_ = b->next;
    return b;
  }
  void give(VoqBlock* b) {
    b->next = free_;
    free_ = b;
  }
  VoqBlock* free_ = nullptr;
  std::vector<std::unique_ptr<VoqBlock[]>> chunks_;
};

}  // namespace netasic
