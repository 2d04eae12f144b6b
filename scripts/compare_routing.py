#!/usr/bin/python3
"""Compare routing policies on one netasic scenario: ECMP (`minimal` on a dragonfly, plus `ugal` there),
spraying, LetFlow (three flowlet timeouts) and Flowcut (three variants).

Usage:
  scripts/compare_routing.py SCENARIO.yaml [--out DIR] [--seeds N] [--set KEY=VALUE]...
                             [--letflow-timeouts T1,T2,T3] [--only LABEL,...] [--netasic PATH]

Each run is `netasic run SCENARIO --set ... --quiet --out DIR/<label>` (with --seeds N > 1:
DIR/<label>-s<seed>, seeds 1..N). The script reads each run's summary.json and prints a markdown table,
also written to DIR/table.md. With several seeds, the table shows the mean over seeds of every figure
and a per-seed table follows. A run that exits non-zero, or leaves flows incomplete, is reported in
the table, never dropped. Python 3 standard library only.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_NETASIC = os.path.join(os.path.dirname(HERE), "build", "netasic")


def read_topology_type(path):
    """The scenario's topology.type (fat_tree when absent). A tiny reader: enough for our YAML files."""
    topo = "fat_tree"
    in_topology = False
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            text = line.strip()
            if indent == 0:
                in_topology = text.startswith("topology:")
                if text.startswith("topology.type:"):
                    topo = text.split(":", 1)[1].strip()
            elif in_topology and indent > 0 and text.startswith("type:"):
                topo = text.split(":", 1)[1].strip()
    return topo


def policies(topology, timeouts):
    """(label, extra --set list) for every policy compared."""
    base = "minimal" if topology == "dragonfly" else "ecmp"
    runs = [(base, ["routing.policy=" + base]), ("spray", ["routing.policy=spray"])]
    if topology == "dragonfly":
        # The paper also compares with UGAL on the dragonfly. (netasic's spray behaves as minimal there.)
        runs.append(("ugal", ["routing.policy=ugal"]))
    for t in timeouts:
        runs.append(("letflow-%gus" % t, ["routing.policy=letflow", "letflow.timeout_us=%g" % t]))
    for v in ("full_switch", "ingress_only", "nic_only"):
        runs.append(("flowcut-" + v, ["routing.policy=flowcut", "flowcut.variant=" + v]))
    return runs


def run_one(netasic, scenario, sets, out):
    cmd = [netasic, "run", scenario]
    for s in sets:
        cmd += ["--set", s]
    cmd += ["--quiet", "--out", out]
    summary_path = os.path.join(out, "summary.json")
    if os.path.exists(summary_path):
        os.remove(summary_path)  # never read a stale summary of an earlier run
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    result = {"cmd": " ".join(shlex.quote(c) for c in cmd), "rc": proc.returncode, "wall": wall,
              "stderr": proc.stderr.strip()}
    # Exit 0 and 3 (incomplete flows) write a summary.
    if proc.returncode in (0, 3) and os.path.exists(summary_path):
        with open(summary_path, encoding="utf-8") as f:
            result["summary"] = json.load(f)
    return result


def figures(r):
    """The table's figures of one run (None where not applicable)."""
    s = r.get("summary")
    if s is None:
        return None
    fl = s["flows"]
    d = {
        "completed": fl["completed"], "count": fl["count"],
        "avg_fct_us": fl["fct_ns"]["avg"] / 1000.0, "p99_fct_us": fl["fct_ns"]["p99"] / 1000.0,
        "avg_slowdown": fl["slowdown"]["avg"], "ooo_pct": s["packets"]["ooo_fraction"] * 100.0,
        "max_ood": s["packets"]["max_ooo_degree"], "sim_us": s["sim_time_ns"] / 1000.0,
        "hit_limit": s.get("hit_time_limit", False),
    }
    fc = s.get("flowcut")
    if fc:
        d.update({"fc_per_flow": fc["flowcuts_per_flow"], "drains": fc["drains"],
                  "drain_frac_pct": fc["drain_fraction_of_fct"] * 100.0,
                  "fgfc": fc["fgfc_frames"]["xoff"] + fc["fgfc_frames"]["xoff_credit"] + fc["fgfc_frames"]["xon"],
                  "overflows": fc["table"]["overflows"], "high_water": fc["table"]["high_water"]})
    lf = s.get("letflow")
    if lf:
        d.update({"flowlets": lf["flowlets"]})
    return d


def status(results):
    bad = [r for r in results if r["rc"] != 0]
    if bad:
        return "FAILED (exit %s)" % ",".join(str(r["rc"]) for r in bad)
    figs = [figures(r) for r in results]
    if any(f is None for f in figs):
        return "FAILED (no summary)"
    if any(f["completed"] < f["count"] for f in figs):
        return "incomplete (%s)" % ",".join("%d/%d" % (f["completed"], f["count"]) for f in figs)
    return "ok"


def mean(vals):
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


HEADER = ("| policy | avg FCT (µs) | p99 FCT (µs) | avg slowdown | OOO % | max OOD | flowcuts/flow | drains "
          "| drain % of FCT | FGFC frames | table high-water | overflows | wall (s) | status |")
RULE = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"


def row(label, results):
    figs = [f for f in (figures(r) for r in results) if f is not None]
    wall = sum(r["wall"] for r in results) / len(results)

    def m(k):
        return mean([f.get(k) for f in figs]) if figs else None

    max_ood = max([f["max_ood"] for f in figs]) if figs else None
    hw = max([f["high_water"] for f in figs if "high_water" in f], default=None)
    return "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        label, fmt(m("avg_fct_us"), ".1f"), fmt(m("p99_fct_us"), ".1f"), fmt(m("avg_slowdown"), ".3f"),
        fmt(m("ooo_pct"), ".3f"), fmt(max_ood, "d"), fmt(m("fc_per_flow"), ".2f"), fmt(m("drains"), ".0f"),
        fmt(m("drain_frac_pct"), ".1f"), fmt(m("fgfc"), ".0f"), fmt(hw, "d"), fmt(m("overflows"), ".0f"),
        fmt(wall, ".1f"), status(results))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario")
    ap.add_argument("--out", default=None, help="output directory (default out/compare/<scenario name>)")
    ap.add_argument("--seeds", type=int, default=1, help="seeds 1..N per policy (default 1)")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="extra scenario key for every run (repeatable)")
    ap.add_argument("--letflow-timeouts", default="0.5,2,20",
                    help="three (or more) flowlet timeouts in µs, comma-separated (default 0.5,2,20)")
    ap.add_argument("--only", default="", help="comma-separated labels to run (default: all)")
    ap.add_argument("--netasic", default=DEFAULT_NETASIC, help="netasic binary (default build/netasic)")
    args = ap.parse_args()

    if not os.path.isfile(args.scenario):
        sys.exit("compare_routing: no such scenario file: " + args.scenario)
    if not os.access(args.netasic, os.X_OK):
        sys.exit("compare_routing: netasic binary not found: %s (cmake --build build -j1 --target netasic)"
                 % args.netasic)
    if args.seeds < 1:
        sys.exit("compare_routing: --seeds must be >= 1")
    name = os.path.splitext(os.path.basename(args.scenario))[0]
    out = args.out or os.path.join("out", "compare", name)
    os.makedirs(out, exist_ok=True)
    timeouts = [float(t) for t in args.letflow_timeouts.split(",") if t.strip()]
    topo = read_topology_type(args.scenario)
    for s in args.sets:
        if s.startswith("topology.type="):
            topo = s.split("=", 1)[1]
    runs = policies(topo, timeouts)
    if args.only:
        keep = set(args.only.split(","))
        runs = [r for r in runs if r[0] in keep]

    table = {}
    t_start = time.monotonic()
    for label, extra in runs:
        table[label] = []
        for seed in range(1, args.seeds + 1):
            sets = list(args.sets) + extra
            if args.seeds > 1:
                sets.append("sim.seed=%d" % seed)
                d = os.path.join(out, "%s-s%d" % (label, seed))
            else:
                d = os.path.join(out, label)
            r = run_one(args.netasic, args.scenario, sets, d)
            r["seed"] = seed
            table[label].append(r)
            print("compare_routing: %-22s seed %d: exit %d, %.1f s" % (label, seed, r["rc"], r["wall"]),
                  file=sys.stderr)
            if r["rc"] != 0 and r["stderr"]:
                print("compare_routing:   " + r["stderr"].splitlines()[-1], file=sys.stderr)
    total = time.monotonic() - t_start

    lines = []
    lines.append("Scenario `%s`%s, %s; %s." % (
        args.scenario, "".join(" `--set %s`" % s for s in args.sets),
        "seed 1" if args.seeds == 1 else "mean over seeds 1..%d (max OOD: max over seeds)" % args.seeds,
        "total wall %.0f s" % total))
    lines.append("")
    lines.append(HEADER)
    lines.append(RULE)
    for label, _ in runs:
        lines.append(row(label, table[label]))
    if args.seeds > 1:
        lines.append("")
        lines.append("Per seed:")
        lines.append("")
        lines.append(HEADER.replace("| policy |", "| policy | seed |", 1))
        lines.append(RULE.replace("|---|", "|---|---:|", 1))
        for label, _ in runs:
            for r in table[label]:
                lines.append(row(label, [r]).replace("| %s |" % label, "| %s | %d |" % (label, r["seed"]), 1))
    failed = [(label, r) for label, _ in runs for r in table[label] if r["rc"] != 0]
    if failed:
        lines.append("")
        lines.append("Failed runs:")
        lines.append("")
        for label, r in failed:
            last = r["stderr"].splitlines()[-1] if r["stderr"] else ""
            lines.append("- `%s`: exit %d: %s" % (r["cmd"], r["rc"], last))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    with open(os.path.join(out, "table.md"), "w", encoding="utf-8") as f:
        f.write(text)
    with open(os.path.join(out, "runs.json"), "w", encoding="utf-8") as f:
        json.dump({label: [{k: v for k, v in r.items() if k != "summary"} for r in table[label]]
                   for label, _ in runs}, f, indent=2)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
