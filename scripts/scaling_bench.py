#!/usr/bin/env python3
"""How netasic's cost grows with the fabric: the bench scenario (3-tier fat tree, permutation, ECMP,
lossless) at several sizes, run in rounds (every size once per round, so all sizes see the same state of
a shared host), and reported as one table per size: wall time of the event loop, packet-hops per second,
time per packet-hop, events per hop, peak resident memory and memory per host, and the whole process's wall
and system time (median and range over the rounds).

    scripts/scaling_bench.py --netasic build/netasic                      # k = 8, 12, 16, 24, 32
    scripts/scaling_bench.py --netasic build/netasic --k 8 16 --rounds 5 --out out/scaling
    scripts/scaling_bench.py --netasic build/netasic --k 64 --rounds 1 --size 131072   # 65,536 hosts

Two binaries, or two settings, side by side: with --against OTHER (another netasic binary) and/or
--against-set KEY=VALUE (keys for the second side only), every run of the first side is paired with one of
the second at the same size in the same round, in alternating order, and a comparison table follows: per
size, the ratio of the loop times (first / second; median, range, and in how many pairs the first was faster),
and whether both did the same work (packet-hops and events equal in every pair: a change that should move
speed only says "yes").

    scripts/scaling_bench.py --netasic build/netasic --against ../before/build/netasic --k 16 32 --rounds 5
    scripts/scaling_bench.py --netasic build/netasic --against-set sim.prefetch=deep --k 16 --rounds 4

Writes OUT/scaling.csv (one row per run, the side in its first column), OUT/scaling.md (the tables) and,
with matplotlib (Debian's python3-matplotlib), OUT/scaling.png. Extra scenario keys for both sides pass
through with --set KEY=VALUE. Bad input (a binary that is not there, a key that is not KEY=VALUE, a key netasic
refuses) exits 2, as netasic does. Python 3 standard library only, apart from the plot.
"""
import argparse
import csv
import os
import re
import resource
import statistics
import subprocess
import sys
import time

LINE_FABRIC = re.compile(r"bench: .*?: (\d+) hosts, (\d+) switches")
LINE_RUN = re.compile(r"bench: (\d+) packet-hops, (\d+) events in ([\d.]+) s wall, ([\d.]+) us simulated, (\d+)/(\d+) flows")
LINE_RSS = re.compile(r"bench: peak_rss_mib=(\d+)")
LINE_POOL = re.compile(r"bench: packets_allocated=(\d+)")


def run_once(netasic, k, size, sets):
    cmd = [netasic, "bench", "--quiet", "--set", f"topology.fat_tree.k={k}", "--set", f"workload.size_bytes={size}"]
    for s in sets:
        cmd += ["--set", s]
    # The whole process's wall, user and system time beside the loop's: on a virtual machine that backs guest
    # memory on first use, the system time shows what the host's page backing cost the run (scripts/first_touch.py).
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    process_s = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        print(f"scaling_bench: {' '.join(cmd)} failed (exit {p.returncode}):\n{p.stderr.strip()}", file=sys.stderr)
        # netasic's exit 2 is bad input (an unknown or malformed key): so is this run's.
        sys.exit(2 if p.returncode == 2 else 1)
    out = p.stdout
    fab, run, rss = LINE_FABRIC.search(out), LINE_RUN.search(out), LINE_RSS.search(out)
    if not (fab and run and rss):
        sys.exit(f"scaling_bench: unexpected bench output from {' '.join(cmd)}:\n{out}")
    hops, events, wall = int(run.group(1)), int(run.group(2)), float(run.group(3))
    if run.group(5) != run.group(6):
        sys.exit(f"scaling_bench: k={k}: only {run.group(5)} of {run.group(6)} flows completed")
    hosts = int(fab.group(1))
    pool = LINE_POOL.search(out)
    return {
        "k": k, "hosts": hosts, "switches": int(fab.group(2)), "size_bytes": size,
        "packet_hops": hops, "events": events, "wall_s": wall, "simulated_us": float(run.group(4)),
        "peak_rss_mib": int(rss.group(1)),
        "hops_per_s": hops / wall, "ns_per_hop": wall * 1e9 / hops, "events_per_hop": events / hops,
        "kib_per_host": int(rss.group(1)) * 1024 / hosts,
        "packets_allocated": int(pool.group(1)) if pool else 0,
        "process_s": process_s, "process_user_s": after.ru_utime - before.ru_utime,
        "process_sys_s": after.ru_stime - before.ru_stime,
    }


def median_range(values, fmt):
    m = statistics.median(values)
    if len(values) == 1:
        return fmt(m)
    return f"{fmt(m)} ({fmt(min(values))} - {fmt(max(values))})"


def comparison(pairs, ks):
    """pairs: (row of the first side, row of the second) per size and round."""
    lines = ["Ratio: the first side's loop wall time over the second's, per pair.", "",
             "| k | hosts | loop wall s, first | loop wall s, second | ratio | first faster in | same work |",
             "|---:|---:|---:|---:|---:|---:|---|"]
    for k in ks:
        ps = [(a, b) for a, b in pairs if a["k"] == k]
        ratios = [a["wall_s"] / b["wall_s"] for a, b in ps]
        faster = sum(1 for a, b in ps if a["wall_s"] < b["wall_s"])
        differ = [(a, b) for a, b in ps if (a["packet_hops"], a["events"]) != (b["packet_hops"], b["events"])]
        if differ:
            a, b = differ[0]
            same = (f"no: {a['packet_hops']:,} against {b['packet_hops']:,} packet-hops, "
                    f"{a['events']:,} against {b['events']:,} events")
        else:
            same = "yes"
        lines.append("| " + " | ".join([
            str(k), str(ps[0][0]["hosts"]),
            median_range([a["wall_s"] for a, _ in ps], lambda v: f"{v:.3f}"),
            median_range([b["wall_s"] for _, b in ps], lambda v: f"{v:.3f}"),
            median_range(ratios, lambda v: f"{v:.3f}"), f"{faster} of {len(ps)}", same]) + " |")
    return "\n".join(lines) + "\n"


def table(rows, ks):
    base = [r["ns_per_hop"] for r in rows if r["k"] == ks[0]]
    lines = ["| k | hosts | switches | packet-hops | loop wall s | packet-hops/s | ns per hop | "
             f"ns per hop / k={ks[0]} | events per hop | peak RSS MiB | KiB per host | packets allocated | "
             "process wall s | process system s |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for k in ks:
        rs = [r for r in rows if r["k"] == k]
        ns = [r["ns_per_hop"] for r in rs]
        rel = statistics.median(ns) / statistics.median(base)
        lines.append("| " + " | ".join([
            str(k), str(rs[0]["hosts"]), str(rs[0]["switches"]), f"{rs[0]['packet_hops']:,}",
            median_range([r["wall_s"] for r in rs], lambda v: f"{v:.3f}"),
            median_range([r["hops_per_s"] / 1e6 for r in rs], lambda v: f"{v:.2f} M"),
            median_range(ns, lambda v: f"{v:.0f}"), f"{rel:.2f}",
            f"{statistics.median(r['events_per_hop'] for r in rs):.2f}",
            str(max(r["peak_rss_mib"] for r in rs)),
            f"{statistics.median(r['kib_per_host'] for r in rs):.0f}",
            f"{max(r['packets_allocated'] for r in rs):,}",
            median_range([r["process_s"] for r in rs], lambda v: f"{v:.2f}"),
            median_range([r["process_sys_s"] for r in rs], lambda v: f"{v:.2f}")]) + " |")
    return "\n".join(lines) + "\n"


def plot(sides, ks, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("scaling_bench: no matplotlib (Debian: python3-matplotlib); no plot written", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4))
    ax2 = ax.twinx()
    for n, (name, rows) in enumerate(sides):
        hosts = [next(r["hosts"] for r in rows if r["k"] == k) for k in ks]
        ns = [statistics.median(r["ns_per_hop"] for r in rows if r["k"] == k) for k in ks]
        lo = [min(r["ns_per_hop"] for r in rows if r["k"] == k) for k in ks]
        hi = [max(r["ns_per_hop"] for r in rows if r["k"] == k) for k in ks]
        rss = [statistics.median(r["kib_per_host"] for r in rows if r["k"] == k) for k in ks]
        suffix = f", {name}" if len(sides) > 1 else ""
        ax.errorbar(hosts, ns, yerr=[[m - l for m, l in zip(ns, lo)], [h - m for m, h in zip(ns, hi)]],
                    marker="o", capsize=3, color=f"C{2 * n}", label=f"time per packet-hop (median, range){suffix}")
        ax2.plot(hosts, rss, marker="s", color=f"C{2 * n + 1}", label=f"peak RSS per host{suffix}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("hosts (3-tier fat tree)")
    ax.set_ylabel("ns per packet-hop")
    ax.set_ylim(bottom=0)
    ax2.set_ylabel("KiB per host")
    ax2.set_ylim(bottom=0)
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper left", fontsize=8)
    ax.set_title("netasic bench: cost per packet-hop by fabric size")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"scaling_bench: wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--netasic", required=True, help="path of the netasic binary")
    ap.add_argument("--k", type=int, nargs="+", default=[8, 12, 16, 24, 32], help="fat-tree radices (even)")
    ap.add_argument("--rounds", type=int, default=3, help="runs per size, alternated across sizes")
    ap.add_argument("--size", type=int, default=1 << 20, help="bytes per flow (workload.size_bytes)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="extra scenario key")
    ap.add_argument("--out", default="out/scaling", help="output directory")
    ap.add_argument("--against", metavar="NETASIC", help="a second netasic binary, run alternated with the first")
    ap.add_argument("--against-set", action="append", default=[], metavar="KEY=VALUE",
                    help="scenario key for the second side only (after --set; with or without --against)")
    a = ap.parse_args()
    if any(k < 4 or k % 2 for k in a.k):
        ap.error("--k: every radix must be even and at least 4")
    if a.rounds < 1:
        ap.error("--rounds: at least 1")
    for flag, path in (("--netasic", a.netasic), ("--against", a.against)):
        if path is not None and not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error(f"{flag}: {path} is not an executable file")
    for flag, keys in (("--set", a.set), ("--against-set", a.against_set)):
        for kv in keys:
            if "=" not in kv or kv.startswith("="):
                ap.error(f"{flag}: {kv!r} is not KEY=VALUE")
    compare = a.against is not None or bool(a.against_set)
    sides = [("first", a.netasic, a.set)]
    if compare:
        sides.append(("second", a.against or a.netasic, a.set + a.against_set))
    os.makedirs(a.out, exist_ok=True)
    rows = {name: [] for name, _, _ in sides}
    pairs = []
    for rnd in range(a.rounds):
        for i, k in enumerate(a.k):
            # Pairs alternate which side runs first, so neither always meets the host right after the other.
            order = sides if (rnd * len(a.k) + i) % 2 == 0 else sides[::-1]
            got = {}
            for name, binary, sets in order:
                r = run_once(binary, k, a.size, sets)
                r["side"], r["round"] = name, rnd
                rows[name].append(r)
                got[name] = r
                label = f" {name}" if compare else ""
                print(f"round {rnd + 1}/{a.rounds} k={k}{label}: {r['hosts']} hosts, {r['wall_s']:.2f} s, "
                      f"{r['ns_per_hop']:.0f} ns/hop, {r['peak_rss_mib']} MiB, process {r['process_s']:.2f} s "
                      f"({r['process_sys_s']:.2f} s system)", file=sys.stderr, flush=True)
            if compare:
                pairs.append((got["first"], got["second"]))
    every = [r for name, _, _ in sides for r in rows[name]]
    with open(os.path.join(a.out, "scaling.csv"), "w", newline="") as f:
        fields = ["side"] + [key for key in every[0] if key != "side"]
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(every)
    md = ""
    for name, binary, sets in sides:
        if compare:
            md += f"{name.capitalize()}: {binary}{''.join(f' --set {kv}' for kv in sets)}\n\n"
        md += table(rows[name], a.k) + ("\n" if compare else "")
    if compare:
        md += comparison(pairs, a.k)
    with open(os.path.join(a.out, "scaling.md"), "w") as f:
        f.write(md)
    print(md, end="")
    plot([(name, rows[name]) for name, _, _ in sides], a.k, os.path.join(a.out, "scaling.png"))


if __name__ == "__main__":
    main()
