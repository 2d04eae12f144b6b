// Transparent huge pages for the model's memory.
//
// A large fabric's state (packets, ports, links, the event ring) is touched at random, a few lines per
// event, over more than a hundred megabytes: with 4 KiB pages nearly every such access also misses the
// TLB. Backing that memory with 2 MiB pages removes most of those walks (about a fifth of the run time
// on the 1024-host reference; see docs/performance.md). Linux only; elsewhere, or when the kernel has
// transparent huge pages disabled, these do nothing and the model runs as before.
#pragma once

#include <cstddef>
#include <string>

namespace netasic {

// Before the model is built: has the C library take every allocation from one heap that grows in large
// steps (no separate mappings for large blocks), so that use_huge_pages finds the model's memory in one
// region, and the slack at the heap's top, marked with it, serves what the run allocates later.
void prepare_huge_page_heap();

// After prepare_huge_page_heap, before the model is built: grows the heap once by `bytes` (rounded up to
// 2 MiB), untouched but for a few block headers, and marks that part for huge pages, so that the model's
// memory is faulted in 2 MiB at a time as it is first written, instead of in 4 KiB pages collapsed
// afterwards (use_huge_pages). Memory never touched stays out of the resident set. Returns a one-line
// account for the log.
std::string reserve_huge_page_heap(std::size_t bytes);

// Asks the kernel to back the process's private anonymous memory (the heap and anonymous mappings)
// with huge pages from now on, and to collapse what is already there (MADV_COLLAPSE). Call once the
// model is built, before it runs. Returns a one-line account of what was done, for the log.
std::string use_huge_pages();

// Whether use_huge_pages marks a mapping, given its line in /proc/self/maps (permissions, inode, path) and
// the size of its 2 MiB-aligned part: private anonymous read-write memory, the heap at any size, other
// anonymous regions up to 1 GiB (larger ones are reservations, never the model's data).
bool wants_huge_pages(const std::string& perms, unsigned long inode, const std::string& path, std::size_t bytes);

// Memory for a large, long-lived block (the packet pool's chunks): 2 MiB-aligned and marked for huge
// pages before it is first touched. Throws std::bad_alloc when none is left. Release with free_huge.
void* allocate_huge(std::size_t bytes);
void free_huge(void* p);

}  // namespace netasic
