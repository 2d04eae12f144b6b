#include "tlm/common/huge_pages.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <new>
#include <sstream>

#if defined(__linux__)
#include <sys/mman.h>
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
#if defined(__linux__) && !defined(MADV_COLLAPSE) && !defined(NETASIC_NO_HUGE_PAGES)
constexpr int MADV_COLLAPSE = 25;  // Linux 6.1; older headers lack it
#endif
}  // namespace

void prepare_huge_page_heap() {
#if defined(__GLIBC__) && !defined(NETASIC_NO_HUGE_PAGES)
  // Blocks up to 32 MiB (the largest threshold glibc accepts on 64-bit) come from the heap.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
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
    const std::uintptr_t a = (lo + kHuge - 1) & ~(kHuge - 1), b = hi & ~(kHuge - 1);
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
  const std::size_t rounded = (bytes + kHuge - 1) & ~(kHuge - 1);
  void* p = std::aligned_alloc(kHuge, rounded);
  if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE) && !defined(NETASIC_NO_HUGE_PAGES)
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without huge pages the block works the same
#endif
  return p;
}

void free_huge(void* p) { std::free(p); }

}  // namespace netasic
