#!/usr/bin/python3
"""Runs the FlowSail comparison of docs/results-flowsail.md and prints its tables (Markdown).

  scripts/flowsail_results.py [--binary build/netasic] [--config configs/flowsail/webserver-incast.yaml]
                              [--loads 0.4,0.5,0.6,0.7,0.8] [--queues 2,4,8,16,32,128] [--seeds 1]
                              [--out /tmp/flowsail-results] [--png FILE] [--reuse]

Table 1: FlowSail, BFC-style and PFC with 8 queues, and ideal per-flow control, per load.
Table 2: FlowSail against BFC-style with 2 to 128 queues at one load (the middle of --loads).
Metrics from each run's flows.csv and summary.json: short flows (< 10 KB) average and p99 FCT slowdown,
background large flows (> 100 KB, the incast bursts' flows left out) average FCT slowdown (the paper's
large-flow metric), all large flows' average throughput (size / FCT), the longest data queue, PAUSE
frames, and out-of-order packets (must be 0). An incast burst's flows are the flows that start at the same
time towards the same host (at least 10 of them).
With --png, a figure of the three main metrics by load and by queue count. With --reuse, a point whose
output folder holds the same command (cmd.txt) is read, not run again.
"""
import argparse
import collections
import csv
import json
import math
import os
import subprocess
import sys
import time

SHORT = 10_000
LARGE = 100_000


def percentile(values, p):
    if not values:
        return float("nan")
    v = sorted(values)
    k = max(0, min(len(v) - 1, math.ceil(p / 100.0 * len(v)) - 1))
    return v[k]


def run(args, label, sets):
    out = os.path.join(args.out, label)
    cmd = [args.binary, "run", args.config, "--quiet", "--out", out]
    for k, v in sets.items():
        cmd += ["--set", f"{k}={v}"]
    text = " ".join(cmd)
    cmd_path = os.path.join(out, "cmd.txt")
    t0 = time.time()
    reused = (args.reuse and os.path.exists(cmd_path) and open(cmd_path).read() == text
              and os.path.exists(os.path.join(out, "flows.csv")))
    if not reused:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout[-2000:]}")
        with open(cmd_path, "w") as f:
            f.write(text)
    wall = time.time() - t0
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    short, large, large_bg = [], [], []
    with open(os.path.join(out, "flows.csv")) as f:
        rows = list(csv.DictReader(f))
    burst = collections.Counter((row["dst"], row["start_ns"]) for row in rows)
    for row in rows:
        size = int(row["size_bytes"])
        fct = float(row["fct_ns"]) if row["fct_ns"] else 0.0
        if fct <= 0:
            continue
        if size < SHORT:
            short.append(float(row["slowdown"]))
        elif size > LARGE:
            large.append(size * 8 / fct)  # Gb/s
            if burst[(row["dst"], row["start_ns"])] < 10:
                large_bg.append(float(row["slowdown"]))
    fc = summary.get("flow_control", {})
    flows = summary["flows"]
    if flows["completed"] != flows["count"]:
        sys.exit(f"{label}: {flows['count'] - flows['completed']} flows did not complete")
    res = {
        "short_avg": sum(short) / len(short) if short else float("nan"),
        "short_p99": percentile(short, 99),
        "large_gbps": sum(large) / len(large) if large else float("nan"),
        "large_bg_slowdown": sum(large_bg) / len(large_bg) if large_bg else float("nan"),
        "max_queue_kb": fc.get("max_data_queue_bytes", summary["ports"]["max_queue_bytes"]) / 1000,
        "pauses": fc.get("pause_frames", 0),
        "ooo": summary["packets"]["out_of_order"],
        "flows": flows["count"],
        "wall": wall,
    }
    print(f"  {label}: {res['flows']} flows, {wall:.1f} s{' (reused)' if reused else ''}", file=sys.stderr)
    return res


def averaged(args, label, sets):
    rows = [run(args, f"{label}-s{seed}", dict(sets, **{"sim.seed": seed})) for seed in args.seeds]
    keys = ["short_avg", "short_p99", "large_bg_slowdown", "large_gbps", "max_queue_kb", "pauses", "ooo", "flows",
            "wall"]
    return {k: sum(r[k] for r in rows) / len(rows) for k in keys}


def row(name, r):
    return (f"| {name} | {r['short_avg']:.2f} | {r['short_p99']:.2f} | {r['large_bg_slowdown']:.2f} | "
            f"{r['large_gbps']:.1f} | {r['max_queue_kb']:.0f} | {r['pauses']:.0f} | {r['ooo']:.0f} |")


HEADER = ("| scheme | short avg slowdown | short p99 slowdown | background large avg slowdown | all large avg Gb/s "
          "| max queue KB | PAUSE frames | OOO |\n"
          "|---|---|---|---|---|---|---|---|")


def plot(path, by_load, by_queues):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    for mode, pts in by_load.items():
        loads = sorted(pts)
        ax[0].plot(loads, [pts[l]["short_p99"] for l in loads], marker="o", label=mode)
        ax[1].plot(loads, [pts[l]["large_bg_slowdown"] for l in loads], marker="o", label=mode)
    for a, title in ((ax[0], "short flows (< 10 KB): p99 FCT slowdown"),
                     (ax[1], "background large flows (> 100 KB): avg slowdown")):
        a.set_xlabel("load")
        a.set_title(title, fontsize=10)
        a.set_yscale("log")
        a.grid(True, which="both", alpha=0.3)
        a.legend()
    for mode, pts in by_queues.items():
        qs = sorted(pts)
        ax[2].plot(qs, [pts[q]["short_p99"] for q in qs], marker="o", label=mode)
    ax[2].set_xscale("log", base=2)
    ax[2].set_yscale("log")
    ax[2].set_xlabel("queues per port")
    ax[2].set_title("short flows: p99 FCT slowdown by queue count", fontsize=10)
    ax[2].grid(True, which="both", alpha=0.3)
    ax[2].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default="build/netasic")
    ap.add_argument("--config", default="configs/flowsail/webserver-incast.yaml")
    ap.add_argument("--loads", default="0.4,0.5,0.6,0.7,0.8")
    ap.add_argument("--queues", default="2,4,8,16,32,128")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--out", default="/tmp/flowsail-results")
    ap.add_argument("--png", help="write a figure of the results to this file")
    ap.add_argument("--reuse", action="store_true", help="read points already run with the same command")
    args = ap.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",")]
    loads = [float(x) for x in args.loads.split(",")]
    queues = [int(x) for x in args.queues.split(",")]
    t0 = time.time()

    by_load = collections.defaultdict(dict)
    by_queues = collections.defaultdict(dict)
    print("## Schemes with 8 queues, by load\n")
    for load in loads:
        sets = {"workload.load": load, "workload.incast_mix.load": round(load / 10, 4)}
        print(f"### load {load:.1f} (incast {load / 10:.2f})\n")
        print(HEADER)
        for mode in ["flowsail", "bfc", "pfc", "ideal"]:
            r = averaged(args, f"{mode}-8q-load{load}", dict(sets, **{"switch.flow_control": mode, "switch.fc.queues": 8}))
            print(row(mode if mode == "ideal" else f"{mode}-8Q", r))
            by_load[mode if mode == "ideal" else f"{mode}-8Q"][load] = r
        print()

    mid = loads[len(loads) // 2]
    sets = {"workload.load": mid, "workload.incast_mix.load": round(mid / 10, 4)}
    print(f"## FlowSail against BFC by queue count (load {mid:.1f})\n")
    print(HEADER)
    for q in queues:
        for mode in ["flowsail", "bfc"]:
            r = averaged(args, f"{mode}-{q}q-load{mid}", dict(sets, **{"switch.flow_control": mode, "switch.fc.queues": q}))
            print(row(f"{mode}-{q}Q", r))
            by_queues[mode][q] = r
    print(f"\n(total wall time {time.time() - t0:.0f} s)")
    if args.png:
        plot(args.png, by_load, by_queues)
        print(f"figure: {args.png}", file=sys.stderr)


if __name__ == "__main__":
    main()
