#include "tlm/common/huge_pages.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define NETASIC_NO_HUGE_PAGES 1  // the sanitizer owns the heap and maps terabytes of shadow memory
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NETASIC_NO_HUGE_PAGES 1
#endif
#endif

namespace netasic {

namespace {
constexpr std::size_t kHuge = std::size_t{2} << 20;
constexpr std::uintptr_t huge_floor(std::uintptr_t x) { return x & ~(kHuge - 1); }
constexpr std::uintptr_t huge_ceil(std::uintptr_t x) { return huge_floor(x + kHuge - 1); }
#if defined(__GLIBC__) && !defined(NETASIC_NO_HUGE_PAGES)
// The heap's settings with huge pages: blocks up to the threshold (the largest glibc accepts on 64-bit) come
// from the heap, which grows by at least the pad.
constexpr int kMmapThreshold = 32 << 20;
constexpr int kTopPad = 64 << 20;
#endif
#if defined(__linux__) && !defined(MADV_COLLAPSE) && !defined(NETASIC_NO_HUGE_PAGES)
constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; older headers lack it
#endif
}  // namespace

void prepare_huge_page_heap() {
#if defined(__GLIBC__) && !defined(NETASIC_NO_HUGE_PAGES)
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TOP_PAD, kTopPad);
  // The heap's top is never given back: a reservation reserve_huge_page_heap made stays for the model.
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

std::string reserve_huge_page_heap(std::size_t bytes) {
#if defined(__GLIBC__) && defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(NETASIC_NO_HUGE_PAGES)
  bytes = huge_ceil(bytes);
  const std::size_t top = mallinfo2().keepcost;  // free at the heap's top now
  if (top >= bytes) return "huge pages: the heap's top already holds the reservation";
  // A block just larger than the free top makes the heap grow by the block and the top pad, none of it
  // touched but the blocks' headers. Blocks must stay below the mmap threshold to come from the heap at
  // all, and the pad is an int: a free top larger than a block is first taken in blocks, and a reservation
  // above 2 GiB grows in several steps. Every block goes back to the top at the end.
  constexpr std::size_t kBlock = kMmapThreshold - kHuge;  // the trigger adds 1 MiB
  constexpr std::size_t kMostPerStep = huge_floor(INT_MAX) - kHuge;
  std::vector<void*> blocks;
  std::size_t grown = 0;
  char* first = nullptr;
  char* last = nullptr;
  while (top + grown < bytes && blocks.size() < 4096) {
    while (mallinfo2().keepcost > kBlock && blocks.size() < 4096) {
      void* taken = std::malloc(kBlock);
      if (taken == nullptr) break;
      blocks.push_back(taken);
    }
    auto* lo = static_cast<char*>(sbrk(0));
    mallopt(M_TOP_PAD, static_cast<int>(std::min(bytes - top - grown, kMostPerStep)));
    void* trigger = std::malloc(kBlock + (std::size_t{1} << 20));
    mallopt(M_TOP_PAD, kTopPad);
    auto* hi = static_cast<char*>(sbrk(0));
    if (trigger != nullptr) blocks.push_back(trigger);
    if (trigger == nullptr || hi <= lo) break;  // the heap did not grow: what was reserved stays
    grown += static_cast<std::size_t>(hi - lo);
    if (first == nullptr) first = lo;
    last = hi;
  }
  // Marked once the headers are written, so that they sit on 4 KiB pages: a header in a part the model never
  // reaches does not make 2 MiB resident.
  const std::uintptr_t from = huge_ceil(reinterpret_cast<std::uintptr_t>(first));
  const std::uintptr_t to = huge_floor(reinterpret_cast<std::uintptr_t>(last));
  std::size_t marked = 0;
  if (first != nullptr && to > from && madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE) == 0)
    marked = to - from;
  for (void* taken : blocks) std::free(taken);  // back into the top, which the trim threshold keeps
  if (marked == 0) return "huge pages: no reservation (the heap did not grow)";
  return fmt::format("huge pages: {} MiB of the heap reserved and marked before the model is built", marked >> 20);
#else
  (void)bytes;
  return "huge pages: no reservation on this platform";
#endif
}

bool wants_huge_pages(const std::string& perms, unsigned long inode, const std::string& path, std::size_t bytes) {
  if (perms != "rw-p" || inode != 0 || bytes == 0) return false;
  // The heap holds the model at any size (above 4 GiB on 65,536 hosts, where leaving it out ran the event
  // loop on 4 KiB pages: docs/performance.md, "Huge pages on the largest fabrics").
  if (path == "[heap]") return true;
  return path.empty() && bytes <= (std::size_t{1} << 30);
}

std::string use_huge_pages() {
#if defined(NETASIC_NO_HUGE_PAGES)
  return "huge pages: not used under AddressSanitizer";
#elif defined(__linux__) && defined(MADV_HUGEPAGE)
  std::ifstream maps("/proc/self/maps");
  if (!maps) return "huge pages: /proc/self/maps unreadable, not used";
  std::size_t advised = 0, collapsed = 0, regions = 0;
  std::string line;
  while (std::getline(maps, line)) {
    // start-end perms offset dev inode [path]; private anonymous read-write memory only.
    std::istringstream in(line);
    std::string range, perms, offset, dev, path;
    unsigned long inode = 0;
    in >> range >> perms >> offset >> dev >> inode;
    std::getline(in >> std::ws, path);
    const auto dash = range.find('-');
    const std::uintptr_t lo = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uintptr_t hi = std::stoull(range.substr(dash + 1), nullptr, 16);
    const std::uintptr_t a = huge_ceil(lo), b = huge_floor(hi);
    if (b <= a || !wants_huge_pages(perms, inode, path, b - a)) continue;
    ++regions;
    void* p = reinterpret_cast<void*>(a);
    if (madvise(p, b - a, MADV_HUGEPAGE) != 0) continue;
    advised += b - a;
    // One huge page at a time: a range fails as a whole if any page of it cannot be collapsed (for
    // instance one never touched), and the count says how much worked.
    for (std::uintptr_t h = a; h < b; h += kHuge)
      if (madvise(reinterpret_cast<void*>(h), kHuge, MADV_COLLAPSE) == 0) collapsed += kHuge;
  }
  return fmt::format("huge pages: {} MiB of {} regions marked, {} MiB collapsed", advised >> 20, regions,
                     collapsed >> 20);
#else
  return "huge pages: not supported on this platform";
#endif
}

void* allocate_huge(std::size_t bytes) {
  const std::size_t rounded = huge_ceil(bytes);
  void* p = std::aligned_alloc(kHuge, rounded);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(NETASIC_NO_HUGE_PAGES)
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without huge pages the block works the same
#endif
  return p;
}

void free_huge(void* p) { std::free(p); }

}  // namespace netasic
