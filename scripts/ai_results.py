#!/usr/bin/env python3
"""AI training traffic under the routing mechanisms (docs/results-ai.md): jobs of ring all-reduce, and jobs of
mixture-of-experts all-to-all, sharing a 1024-host fat tree or a 1056-host dragonfly, under ECMP, per-packet
spraying, LetFlow, Flowcut and telemetry-probed routing. One netasic process at a time (nice). Writes
OUT/results.csv (one row per run), OUT/steps.csv (per run, the step-time distribution: 100 quantiles) and
OUT/jobs-*.yaml; --plot draws OUT/*.png from them (matplotlib: Debian's python3-matplotlib, /usr/bin/python3).

  python3 scripts/ai_results.py --netasic build/netasic --out out/ai
  python3 scripts/ai_results.py --netasic build/netasic --out out/ai --topologies fattree \\
      --policies ecmp flowcut --workloads allreduce --seeds 1 2
  /usr/bin/python3 scripts/ai_results.py --plot --out out/ai

A job's completion is from its first flow's start to its last delivery (summary.json collectives); a step
time is one flow of a step from its start (its data arrived) to its delivery (collective_steps.csv).
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

TOPOLOGIES = {
    # 1024 hosts: k = 16, 8 hosts per edge switch (a rack), 128 racks.
    "fattree": {"topology.type": "fat_tree", "topology.fat_tree.k": 16},
    # 33 groups of 8 switches with 4 hosts each: 1056 hosts; a rack is a switch's 4 hosts.
    "dragonfly": {"topology.type": "dragonfly", "topology.dragonfly.a": 8, "topology.dragonfly.p": 4,
                  "topology.dragonfly.h": 4, "topology.dragonfly.groups": 33},
}
# Each scheme's own keys on top of the common ones. Telemetry routing runs as its paper does: LERP
# (selective repeat, DCTCP-like control) on a lossy fabric with ECN.
POLICIES = {
    "ecmp": {"routing.policy": "ecmp"},
    "spray": {"routing.policy": "spray"},
    "letflow": {"routing.policy": "letflow"},
    "flowcut": {"routing.policy": "flowcut"},
    # Dragonfly only: its minimal path between two switches is unique, so ecmp, spray and letflow have one
    # path to choose from; UGAL takes non-minimal (Valiant) paths when the minimal one is loaded.
    "ugal": {"routing.policy": "ugal"},
    "telemetry": {"routing.policy": "telemetry", "link.flow_control": "lossy", "nic.transport": "sr",
                  "nic.cc": "dctcp", "switch.egress_queue_bytes": 1048576, "switch.ecn_threshold_bytes": 131072},
}
DRAGONFLY_ONLY = {"ugal"}
COLORS = {"ecmp": "tab:blue", "spray": "tab:orange", "letflow": "tab:green", "flowcut": "tab:red",
          "ugal": "tab:purple", "telemetry": "tab:brown"}


def jobs_file(out, workload, jobs, hosts, size):
    """`jobs` jobs of `hosts` hosts each, spread one host per rack in turn (every ring step crosses racks)."""
    op = {"allreduce": "all_reduce", "alltoall": "all_to_all"}[workload]
    path = os.path.join(out, f"jobs-{workload}.yaml")
    with open(path, "w") as f:
        f.write(f"# {jobs} jobs of {op} on {hosts} hosts each, ring, {size} bytes, spread over the racks\n")
        f.write("jobs:\n")
        for j in range(jobs):
            f.write(f"  - {{name: {workload}{j}, op: {op}, algorithm: ring, hosts: {hosts}, placement: spread, "
                    f"size_bytes: {size}}}\n")
    return path


def quantile(values, q):
    if not values:
        return ""
    v = sorted(values)
    return v[min(len(v) - 1, max(0, math.ceil(q * len(v)) - 1))]


def table_high_water(tables):
    """Flowcut tables: the largest high-water mark over the switches (tables.json)."""
    fc = tables.get("flowcut", [])
    return max(t["high_water"] for t in fc) if fc else ""


def run_point(netasic, sets):
    with tempfile.TemporaryDirectory() as out:
        cmd = ["nice", netasic, "run", "--quiet", "--out", out]
        for k, v in sets.items():
            cmd += ["--set", f"{k}={v}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}", file=sys.stderr)
            return None
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        with open(os.path.join(out, "tables.json")) as f:
            tables = json.load(f)
        entries = []  # Flowcut table occupancy, one sample per switch per interval
        if os.path.exists(os.path.join(out, "timeseries.csv")):
            with open(os.path.join(out, "timeseries.csv")) as f:
                entries = [int(r["flowcut_entries"]) for r in csv.DictReader(f) if r["port_index"] == "0"]
        summary["_entries"] = entries
        steps = []
        with open(os.path.join(out, "collective_steps.csv")) as f:
            for row in csv.DictReader(f):
                if row["finish_ns"]:
                    steps.append(float(row["finish_ns"]) - float(row["start_ns"]))
        return summary, tables, steps


def plot(out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(os.path.join(out, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "steps.csv")) as f:
        steps = list(csv.DictReader(f))
    cases = sorted({(r["topology"], r["workload"]) for r in rows})
    # Slowest job's completion per policy (mean over seeds), one panel per topology and workload.
    fig, axes = plt.subplots(1, len(cases), figsize=(4 * len(cases), 3.6), squeeze=False)
    for ax, (topo, work) in zip(axes[0], cases):
        policies = list(dict.fromkeys(r["policy"] for r in rows if (r["topology"], r["workload"]) == (topo, work)))
        means = []
        for p in policies:
            v = [float(r["completion_max_us"]) for r in rows
                 if (r["topology"], r["workload"], r["policy"]) == (topo, work, p) and r["completion_max_us"]]
            means.append(sum(v) / len(v) if v else 0)
        ax.bar(policies, means, color=[COLORS.get(p, "tab:gray") for p in policies])
        ax.set_title(f"{topo}, {work}")
        ax.set_ylabel("slowest job's completion (us)")
        ax.tick_params(axis="x", rotation=45)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "completion.png"), dpi=110)
    # Step-time distribution (first seed), one panel per topology and workload.
    fig, axes = plt.subplots(1, len(cases), figsize=(4 * len(cases), 3.6), squeeze=False)
    for ax, (topo, work) in zip(axes[0], cases):
        first = min(int(r["seed"]) for r in steps if (r["topology"], r["workload"]) == (topo, work))
        for r in steps:
            if (r["topology"], r["workload"], int(r["seed"])) != (topo, work, first):
                continue
            q = [float(r[f"q{i}"]) for i in range(1, 101)]
            ax.plot(q, [i / 100 for i in range(1, 101)], label=r["policy"], color=COLORS.get(r["policy"]))
        ax.set_xscale("log")
        ax.set_title(f"{topo}, {work}")
        ax.set_xlabel("step time (us)")
        ax.set_ylabel("fraction of steps")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "steps.png"), dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netasic")
    ap.add_argument("--out", required=True)
    ap.add_argument("--plot", action="store_true", help="draw OUT/completion.png and OUT/steps.png, run nothing")
    ap.add_argument("--topologies", nargs="+", default=list(TOPOLOGIES), choices=list(TOPOLOGIES))
    ap.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    ap.add_argument("--workloads", nargs="+", default=["allreduce", "alltoall"], choices=["allreduce", "alltoall"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[1])
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--hosts-per-job", type=int, default=64)
    ap.add_argument("--allreduce-bytes", type=int, default=8388608)
    ap.add_argument("--alltoall-bytes", type=int, default=4194304)
    ap.add_argument("--rate-gbps", type=float, default=200)
    ap.add_argument("--sample-us", type=float, default=20,
                    help="Flowcut runs: sample each switch's table occupancy this often (timeseries.csv)")
    a = ap.parse_args()
    if a.plot:
        return plot(a.out)
    if not a.netasic:
        ap.error("--netasic is required to run")
    os.makedirs(a.out, exist_ok=True)
    files = {w: jobs_file(a.out, w, a.jobs, a.hosts_per_job,
                          a.allreduce_bytes if w == "allreduce" else a.alltoall_bytes) for w in a.workloads}
    cols = ["topology", "workload", "policy", "seed", "jobs_complete", "completion_mean_us", "completion_max_us",
            "busbw_mean_gbps", "step_p50_us", "step_p99_us", "step_max_us", "out_of_order_packets",
            "packets_dropped", "flowcut_high_water", "flowcut_entries_p50", "flowcut_entries_p99",
            "flowcut_entries_p9999", "flowcut_drains",
            "drain_fraction_of_fct", "wall_seconds"]
    step_cols = ["topology", "workload", "policy", "seed"] + [f"q{i}" for i in range(1, 101)]
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f, \
            open(os.path.join(a.out, "steps.csv"), "w", newline="") as fs:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        ws = csv.DictWriter(fs, fieldnames=step_cols)
        ws.writeheader()
        for topo in a.topologies:
            for workload in a.workloads:
                for policy in a.policies:
                    if policy in DRAGONFLY_ONLY and topo != "dragonfly":
                        continue
                    for seed in a.seeds:
                        sets = {"link.rate_gbps": a.rate_gbps, "workload.type": "jobs",
                                "workload.jobs_file": files[workload], "sim.seed": seed}
                        sets.update(TOPOLOGIES[topo])
                        sets.update(POLICIES[policy])
                        if policy == "flowcut":
                            sets["stats.sample_us"] = a.sample_us
                        print(f"{topo} {workload} {policy} seed {seed} ...", file=sys.stderr, flush=True)
                        res = run_point(a.netasic, sets)
                        if res is None:
                            continue
                        s, tables, steps = res
                        coll = s["collectives"]
                        done = [c["completion_ns"] / 1e3 for c in coll if c["complete"]]
                        fc = s.get("flowcut", {})
                        w.writerow({
                            "topology": topo, "workload": workload, "policy": policy, "seed": seed,
                            "jobs_complete": f"{len(done)}/{len(coll)}",
                            "completion_mean_us": round(sum(done) / len(done), 1) if done else "",
                            "completion_max_us": round(max(done), 1) if done else "",
                            "busbw_mean_gbps": round(sum(c["busbw_gbps"] for c in coll) / len(coll), 2),
                            "step_p50_us": round(quantile(steps, 0.5) / 1e3, 2) if steps else "",
                            "step_p99_us": round(quantile(steps, 0.99) / 1e3, 2) if steps else "",
                            "step_max_us": round(max(steps) / 1e3, 2) if steps else "",
                            "out_of_order_packets": s["packets"].get("out_of_order", ""),
                            "packets_dropped": s["packets"].get("dropped", ""),
                            "flowcut_high_water": table_high_water(tables),
                            "flowcut_entries_p50": quantile(s["_entries"], 0.5),
                            "flowcut_entries_p99": quantile(s["_entries"], 0.99),
                            "flowcut_entries_p9999": quantile(s["_entries"], 0.9999),
                            "flowcut_drains": fc.get("drains", ""),
                            "drain_fraction_of_fct": round(fc["drain_fraction_of_fct"], 4) if fc else "",
                            "wall_seconds": round(s.get("wall_seconds", s.get("run", {}).get("wall_seconds", 0)), 1),
                        })
                        quantiles = {f"q{i}": round(quantile(steps, i / 100) / 1e3, 3) for i in range(1, 101)}
                        ws.writerow({"topology": topo, "workload": workload, "policy": policy, "seed": seed,
                                     **quantiles})
                        f.flush()
                        fs.flush()


if __name__ == "__main__":
    main()
