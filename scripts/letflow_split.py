#!/usr/bin/env python3
"""How many flows each path carries over time, from a run's packets.pcap (docs/results-letflow.md).

Run the scenario with the leaf's output ports traced, e.g.
    build/netasic run configs/letflow/asymmetric-tcp.yaml --set trace.enabled=true --set trace.switches=0 \
        --set trace.max_packets=20000000 --out out/lf
    python3 scripts/letflow_split.py out/lf --fast-node 202 --slow-node 203

Each data packet the leaf sends to a spine is one record whose destination MAC carries the spine's node id
and whose source IP the sending host (docs/outputs.md, "Packet timelines and captures"); one flow per host.
In each window of --window-us, a flow is on the path that carried most of its data packets there; the
script prints, per window, the flows on the fast path out of those that sent, and a summary over the
windows after --warmup-us: mean, percentiles, the share of windows within 10 flows of the ideal, and the
share of the data bytes on each path.
"""
import argparse
import collections
import os
import struct
import sys


def read(path, fast, slow, window_ps):
    """Per window: {flow: Counter(path -> packets)}, and bytes per path."""
    windows = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    path_bytes = collections.Counter()
    with open(path, "rb") as f:
        header = f.read(24)
        if len(header) < 24:
            sys.exit(f"{path}: not a pcap file")
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            sec, nsec, incl, orig = struct.unpack("<IIII", rec)
            data = f.read(incl)
            if len(data) < 47 or data[46] != 0:  # shim type 0: data
                continue
            dst = int.from_bytes(data[3:6], "big")
            if dst not in (fast, slow):
                continue
            src_host = int.from_bytes(data[26:30], "big") - 0x0A000000
            t_ps = (sec * 1_000_000_000 + nsec) * 1000
            windows[t_ps // window_ps][src_host][dst] += 1
            path_bytes[dst] += orig
    return windows, path_bytes


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[k]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir")
    ap.add_argument("--fast-node", type=int, required=True, help="node id of the spine on the fast path")
    ap.add_argument("--slow-node", type=int, required=True, help="node id of the spine on the slow path")
    ap.add_argument("--window-us", type=float, default=1000.0)
    ap.add_argument("--warmup-us", type=float, default=10000.0)
    ap.add_argument("--ideal", type=int, default=80, help="ideal number of flows on the fast path")
    ap.add_argument("--flows", type=int, default=100, help="flows in the run (those not sending are idle)")
    ap.add_argument("--per-window", action="store_true", help="print every window")
    args = ap.parse_args()
    window_ps = int(args.window_us * 1e6)
    windows, path_bytes = read(os.path.join(args.run_dir, "packets.pcap"), args.fast_node, args.slow_node,
                               window_ps)
    fast_counts = []
    for w in sorted(windows):
        flows = windows[w]
        on_fast = sum(1 for c in flows.values() if c[args.fast_node] >= c[args.slow_node])
        both = sum(1 for c in flows.values() if c[args.fast_node] and c[args.slow_node])
        if args.per_window:
            print(f"{w * args.window_us / 1000:.1f} ms: {on_fast} of {len(flows)} flows on the fast path, "
                  f"{both} on both")
        if w * args.window_us >= args.warmup_us:
            fast_counts.append((on_fast, len(flows)))
    if not fast_counts:
        sys.exit("no window after the warm-up")
    k = len(fast_counts)
    fast = sorted(n for n, _ in fast_counts)
    slow = sorted(a - n for n, a in fast_counts)
    idle = sorted(args.flows - a for _, a in fast_counts)
    share = sorted(n / a for n, a in fast_counts if a)
    total = sum(path_bytes.values()) or 1
    near = sum(1 for n in fast if abs(n - args.ideal) <= 10) / k

    def stats(name, v, fmt="{:.0f}"):
        print(f"{name}: mean {fmt.format(sum(v) / len(v))}, p10 {fmt.format(percentile(v, 0.1))}, "
              f"p50 {fmt.format(percentile(v, 0.5))}, p90 {fmt.format(percentile(v, 0.9))}, "
              f"min {fmt.format(v[0])}, max {fmt.format(v[-1])}")

    print(f"windows after warm-up: {k} of {args.window_us:g} us")
    stats("flows on the fast path", fast, "{:.1f}")
    stats("flows on the slow path", slow, "{:.1f}")
    stats("flows sending nothing", idle, "{:.1f}")
    stats("fast-path share of the flows sending", share, "{:.3f}")
    print(f"windows within 10 flows of {args.ideal} on the fast path: {100 * near:.0f}%")
    print(f"data bytes on the fast path: {100 * path_bytes[args.fast_node] / total:.1f}%, slow path: "
          f"{100 * path_bytes[args.slow_node] / total:.1f}%")


if __name__ == "__main__":
    main()
