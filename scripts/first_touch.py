#!/usr/bin/env python3
"""How fast this machine hands a process memory it has not touched yet: maps anonymous memory, writes one
byte per page (4 KiB here), and prints the rate, several times in a row (with pauses between, if asked).

On a virtual machine whose hypervisor backs guest memory on first use and takes freed guest memory back
(virtio-balloon free page reporting), the first touch of memory is far slower than the touch of memory the
guest kernel already holds, and a pause of a few seconds makes memory cold again. Every netasic run pays
that rate for the memory it first touches, so on such a host the largest fabrics' start-up, and the part of
their event loop that grows the packet pool, measure the host as much as the model
(docs/performance.md, "First-touch memory on a virtual machine").

    scripts/first_touch.py                      # 2048 MiB, 3 times back to back
    scripts/first_touch.py --mib 512 --times 4 --pause 10

Python 3 standard library only. Prints one line per pass: MiB, seconds, GB/s.
"""
import argparse
import mmap
import sys
import time


def touch(size):
    region = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    if hasattr(mmap, "MADV_HUGEPAGE"):
        region.madvise(mmap.MADV_HUGEPAGE)  # as netasic's heap (sim.huge_pages)
    start = time.perf_counter()
    for offset in range(0, size, mmap.PAGESIZE):
        region[offset] = 1
    seconds = time.perf_counter() - start
    region.close()
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=int, default=2048, help="memory per pass, MiB (default 2048)")
    ap.add_argument("--times", type=int, default=3, help="passes (default 3)")
    ap.add_argument("--pause", type=float, default=0.0, help="seconds between passes (default 0)")
    args = ap.parse_args()
    if args.mib <= 0:
        ap.error("--mib: at least 1")
    if args.times <= 0:
        ap.error("--times: at least 1")
    if args.pause < 0:
        ap.error("--pause: not negative")
    size = args.mib << 20
    for n in range(args.times):
        if n and args.pause:
            time.sleep(args.pause)
        seconds = touch(size)
        print(f"pass {n + 1}: {args.mib} MiB in {seconds:.3f} s: {size / seconds / 1e9:.2f} GB/s",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
