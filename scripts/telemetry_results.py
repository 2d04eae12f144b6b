#!/usr/bin/env python3
"""Throughput against the number of connections for the four schemes of the telemetry-routing evaluation
(docs/results-telemetry.md): TelemetryLERP, TelemetryGBN, Benchmark, ShortestPath (configs/telemetry/
d1-adv1-*.yaml), for the patterns unf, adv1 and adv2, several seeds. One netasic process at a time (nice).
Writes OUT/results.csv (one row per run) and, with `netasic plot`, OUT/throughput-<shape>-<pattern>.png
(seeds averaged).

  python3 scripts/telemetry_results.py --netasic build/netasic --out out/telemetry-d1 \
      --pairs 8 16 32 64 128 256 --seeds 1 2 3

--table CSV prints, from such a results.csv, the markdown tables of docs/results-telemetry.md: per pattern the
mean over seeds with the min-max range, and the Table III row (TelemetryLERP over Benchmark, per load).
"""
import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs", "telemetry")
SCHEMES = [("TelemetryLERP", "lerp"), ("TelemetryGBN", "gbn"), ("Benchmark", "benchmark"),
           ("ShortestPath", "shortest")]
SHAPES = {"d1": (4, 2, 2), "d2": (6, 3, 3), "d3": (8, 4, 4)}  # a, p, h
# Table I: the 512-host 1:4 fat tree, LERP without PFC against RoCE-style go-back-N on a lossless fabric.
FATTREE = [("LERP", {}), ("RoCE-GBN-lossless", {"link.flow_control": "lossless", "nic.transport": "gbn",
                                                 "nic.cc": "dcqcn"})]


def run_point(netasic, cfg, sets):
    with tempfile.TemporaryDirectory() as out:
        cmd = ["nice", netasic, "run", cfg, "--quiet", "--out", out]
        for k, v in sets.items():
            cmd += ["--set", f"{k}={v}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}", file=sys.stderr)
            return None
        with open(os.path.join(out, "summary.json")) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netasic")
    ap.add_argument("--out")
    ap.add_argument("--table", metavar="CSV", help="print the markdown tables of a results.csv and exit")
    ap.add_argument("--shape", default="d1", choices=sorted(SHAPES))
    ap.add_argument("--patterns", nargs="+", default=["unf", "adv1", "adv2"])
    ap.add_argument("--pairs", nargs="+", type=int, default=[8, 16, 32, 64, 128, 256])
    ap.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    ap.add_argument("--size-bytes", type=int, default=1048576)
    ap.add_argument("--fattree", action="store_true", help="Table I instead: configs/telemetry/fattree512-lerp.yaml")
    a = ap.parse_args()
    if a.table:
        return table(a.table)
    if not a.netasic or not a.out:
        ap.error("--netasic and --out are required unless --table")
    if a.fattree:
        return fattree(a)
    os.makedirs(a.out, exist_ok=True)
    csv_path = os.path.join(a.out, "results.csv")
    cols = ["shape", "scheme", "pattern", "pairs", "seed", "throughput_gbps", "path_switches_total",
            "packets_dropped", "flows_completed", "flows_count", "sim_time_ns", "wall_seconds", "status"]
    aa, p, h = SHAPES[a.shape]
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for pattern in a.patterns:
            for pairs in a.pairs:
                for seed in a.seeds:
                    for name, stem in SCHEMES:
                        sets = {"workload.pattern": pattern, "workload.pairs": pairs, "sim.seed": seed,
                                "workload.size_bytes": a.size_bytes, "topology.dragonfly.a": aa,
                                "topology.dragonfly.p": p, "topology.dragonfly.h": h,
                                "topology.dragonfly.groups": aa * h + 1}
                        j = run_point(a.netasic, os.path.join(CONFIGS, f"d1-adv1-{stem}.yaml"), sets)
                        row = {"shape": a.shape, "scheme": name, "pattern": pattern, "pairs": pairs, "seed": seed,
                               "status": "done" if j else "failed"}
                        if j:
                            row.update(throughput_gbps=j["throughput"]["aggregate_gbps"],
                                       path_switches_total=j["throughput"]["path_switches_total"],
                                       packets_dropped=j["packets"].get("dropped", 0),
                                       flows_completed=j["flows"]["completed"], flows_count=j["flows"]["count"],
                                       sim_time_ns=j["sim_time_ns"], wall_seconds=j["wall_seconds"])
                        w.writerow(row)
                        f.flush()
                        print(f"{a.shape} {pattern} pairs={pairs} seed={seed} {name}: "
                              f"{row.get('throughput_gbps', 'failed')}", flush=True)
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    for pattern in a.patterns:
        sub = os.path.join(a.out, f"results-{pattern}.csv")
        with open(sub, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(r for r in rows if r["pattern"] == pattern)
        png = os.path.join(a.out, f"throughput-{a.shape}-{pattern}.png")
        subprocess.run([a.netasic, "plot", sub, "--x", "pairs", "--y", "throughput_gbps", "--series", "scheme",
                        "--logx", "--out", png, "--title",
                        f"{a.shape.upper()} {pattern.upper()}: aggregate goodput (Gb/s) vs connections"], check=True)


def table(csv_path):
    """Mean over seeds (min-max) per pattern, load and scheme; then TelemetryLERP / Benchmark - 1 per load."""
    with open(csv_path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "done"]
    vals = collections.defaultdict(dict)  # (pattern, pairs, scheme) -> {seed: Gb/s}
    for r in rows:
        vals[(r["pattern"], int(r["pairs"]), r["scheme"])][int(r["seed"])] = float(r["throughput_gbps"])
    names = [n for n, _ in SCHEMES]
    patterns = [p for p in ["unf", "adv1", "adv2"] if any(k[0] == p for k in vals)]
    for pattern in patterns:
        loads = sorted({k[1] for k in vals if k[0] == pattern})
        seeds = sorted({s for k, v in vals.items() if k[0] == pattern for s in v})
        print(f"\n{pattern.upper()}, mean (min-max) over seeds {' '.join(map(str, seeds))}:\n")
        print("| connections | " + " | ".join(names) + " |")
        print("|---" * (len(names) + 1) + "|")
        for n in loads:
            cells = []
            for name in names:
                v = list(vals.get((pattern, n, name), {}).values())
                cells.append(f"{sum(v) / len(v):.0f} ({min(v):.0f}-{max(v):.0f})" if v else "-")
            print(f"| {n} | " + " | ".join(cells) + " |")
    print("\nTelemetryLERP over Benchmark (ratio of the seed means - 1), per load:\n")
    for pattern in patterns:
        out = []
        for n in sorted({k[1] for k in vals if k[0] == pattern}):
            lerp = list(vals.get((pattern, n, "TelemetryLERP"), {}).values())
            bench = list(vals.get((pattern, n, "Benchmark"), {}).values())
            if lerp and bench:
                out.append(f"{n}: {100 * (sum(lerp) / len(lerp)) / (sum(bench) / len(bench)) - 100:+.0f}%")
        print(f"- {pattern.upper()}: " + ", ".join(out))


def fattree(a):
    os.makedirs(a.out, exist_ok=True)
    cols = ["scheme", "pairs", "seed", "throughput_gbps", "packets_dropped", "flows_completed", "flows_count",
            "sim_time_ns", "wall_seconds", "status"]
    csv_path = os.path.join(a.out, "results-fattree.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for pairs in a.pairs:
            for seed in a.seeds:
                for name, extra in FATTREE:
                    sets = {"workload.pairs": pairs, "sim.seed": seed, "workload.size_bytes": a.size_bytes, **extra}
                    j = run_point(a.netasic, os.path.join(CONFIGS, "fattree512-lerp.yaml"), sets)
                    row = {"scheme": name, "pairs": pairs, "seed": seed, "status": "done" if j else "failed"}
                    if j:
                        row.update(throughput_gbps=j["throughput"]["aggregate_gbps"],
                                   packets_dropped=j["packets"].get("dropped", 0),
                                   flows_completed=j["flows"]["completed"], flows_count=j["flows"]["count"],
                                   sim_time_ns=j["sim_time_ns"], wall_seconds=j["wall_seconds"])
                    w.writerow(row)
                    f.flush()
                    print(f"fattree pairs={pairs} seed={seed} {name}: {row.get('throughput_gbps', 'failed')}", flush=True)
    subprocess.run([a.netasic, "plot", csv_path, "--x", "pairs", "--y", "throughput_gbps", "--series", "scheme",
                    "--logx", "--out", os.path.join(a.out, "throughput-fattree.png"), "--title",
                    "512-host 1:4 fat tree: aggregate goodput (Gb/s) vs connections"], check=True)


if __name__ == "__main__":
    main()
