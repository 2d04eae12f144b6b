#!/usr/bin/env python3
"""A model of the speed-up a conservative parallel run of one fabric would reach on N ranks (docs/parallel.md).

The parallel engine is not built; this script predicts what it would gain, from what a single-process run
and the partitioner measure:
  1. one `netasic run` of the scenario with per-port counters (`stats.sample_us`): the event loop's wall time,
     the packets each switch port transmitted, the packets each host received;
  2. `netasic partition --ranks N --json` for each N: which rank owns each switch and host, the cut links and
     the lookahead (the conservative window);
  3. the cost of one window's synchronisation and of one frame sent between ranks, either given
     (--barrier-us, --frame-us) or measured on this machine with a small MPI program (--measure-mpi: needs
     mpicc and mpirun, OpenMPI on Debian).

Model, per N: a rank's work is the packets its switch ports transmit plus the packets its hosts receive,
each at the single run's cost per such packet; in each counter window (--sample-us) the run waits for the
busiest rank, so the compute time is the sum over the counter windows of the busiest rank's work, plus one
synchronisation per window (a tree barrier: its 2-rank cost times ceil(log2 N)), plus the frames the
busiest rank sends over cut links at the per-frame cost. Speed-up = single-process time / that.
It leaves out what it cannot see: cache effects of a smaller working set per rank (which would help), the
proxies' own events, and imbalance inside a counter window, which is coarser than the conservative window
(which would hurt: a smaller --sample-us sees more of it).

Usage:
  scripts/parallel_model.py [--netasic build/netasic] [--set KEY=VALUE]... [--ranks 2 4 8 16 32 64]
                            [--by auto] [--measure-mpi | --barrier-us X --frame-us Y] [--out DIR] [--png FILE]
Python 3 standard library only (matplotlib for --png).
"""
import argparse
import collections
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

MPI_BENCH = r"""
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 20000, frames = 64; char out[64 * 64], in[64 * 64]; memset(out, rank, sizeof out);
  int peer = rank ^ 1;
  for (int i = 0; i < 1000; ++i) MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i) MPI_Barrier(MPI_COMM_WORLD);
  double barrier = (MPI_Wtime() - t0) / n;
  t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i)
    MPI_Sendrecv(out, 64, MPI_BYTE, peer, 0, in, 64, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double one = (MPI_Wtime() - t0) / n;
  t0 = MPI_Wtime();
  for (int i = 0; i < n; ++i)
    MPI_Sendrecv(out, 64 * frames, MPI_BYTE, peer, 0, in, 64 * frames, MPI_BYTE, peer, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
  double many = (MPI_Wtime() - t0) / n;
  if (rank == 0) printf("{\"barrier_us\": %.4f, \"sendrecv_64B_us\": %.4f, \"frame_us\": %.5f}\n",
                        barrier * 1e6, one * 1e6, (many - one) / (frames - 1) * 1e6);
  MPI_Finalize();
  return 0;
}
"""


def fail(msg):
    print("parallel_model: " + msg, file=sys.stderr)
    sys.exit(2)


def measure_mpi(work):
    src = os.path.join(work, "mpi_bench.c")
    exe = os.path.join(work, "mpi_bench")
    with open(src, "w", encoding="utf-8") as f:
        f.write(MPI_BENCH)
    try:
        subprocess.run(["mpicc", "-O2", src, "-o", exe], check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        fail("--measure-mpi needs mpicc (Debian: libopenmpi-dev): %s" % e)
    cmd = ["mpirun", "-n", "2", "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    out = subprocess.run(cmd + [exe], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_single(args, work):
    out = os.path.join(work, "run")
    cmd = [args.netasic, "run", "--quiet", "--out", out, "--set", "stats.sample_us=%g" % args.sample_us]
    for s in args.set:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("netasic run failed (exit %d): %s" % (r.returncode, r.stderr.strip()))
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        summary = json.load(f)
    sent = collections.defaultdict(collections.Counter)  # sample time -> (switch, port_index) -> packets sent
    peer = {}
    with open(os.path.join(out, "timeseries.csv"), encoding="utf-8") as f:
        for row in csv.DictReader(f):
            if not row["switch"]:
                continue
            key = (int(row["switch"]), int(row["port_index"]))
            pk = int(row["packets"])
            if pk:
                sent[row["time_us"]][key] += pk
            peer[key] = row["peer"]
    return summary, sent, peer


def partition(args, n, work):
    path = os.path.join(work, "partition-%d.json" % n)
    cmd = [args.netasic, "partition", "--ranks", str(n), "--by", args.by, "--json", path]
    for s in args.set:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
    with open(path, encoding="utf-8") as f:
        return json.load(f), None


def model(summary, sent, peer, part, costs):
    rank_of = part["rank_of"]
    n = part["ranks"]
    load = [0] * n
    cut = [0] * n
    busiest = 0  # the sum over counter windows of the busiest rank's load in that window
    for counts in sent.values():
        here = [0] * n
        for (sw, port), pk in counts.items():
            r = rank_of["s%d" % sw]
            p = peer[(sw, port)]  # "host<i>" or "sw<j>", as ports.csv names them
            here[r] += pk  # the switch port transmits
            if p.startswith("host"):
                here[rank_of["h" + p[4:]]] += pk  # the host receives
            elif rank_of["s" + p[2:]] != r:
                cut[r] += pk  # a frame to another rank
        busiest += max(here)
        for r in range(n):
            load[r] += here[r]
    total = sum(load)
    wall = summary["wall_seconds"]
    per_unit = wall / total if total else 0.0
    windows = summary["sim_time_ns"] / part["lookahead_ns"]
    compute = busiest * per_unit
    sync = windows * costs["barrier_us"] * 1e-6 * max(1, math.ceil(math.log2(n)))
    frames = max(cut) * costs["frame_us"] * 1e-6 + windows * costs["sendrecv_64B_us"] * 1e-6
    t = compute + sync + frames
    return {
        "ranks": n, "rule": part["rule"], "lookahead_ns": part["lookahead_ns"], "windows": round(windows),
        "imbalance": max(load) / (total / n) if total else 0.0,
        "imbalance_in_time": busiest / (total / n) if total else 0.0, "cut_frames_max_rank": max(cut),
        "cut_fraction": sum(cut) / total if total else 0.0,
        "compute_s": compute, "sync_s": sync, "frames_s": frames, "predicted_s": t,
        "speedup": wall / t if t else 0.0,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netasic", default="build/netasic")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--ranks", type=int, nargs="+", default=[2, 4, 8, 16, 32, 64])
    ap.add_argument("--by", default="auto")
    ap.add_argument("--sample-us", type=float, default=100.0, help="per-port counter window (default 100)")
    ap.add_argument("--measure-mpi", action="store_true")
    ap.add_argument("--barrier-us", type=float)
    ap.add_argument("--frame-us", type=float)
    ap.add_argument("--sendrecv-us", type=float, help="one small exchange per window (default = barrier)")
    ap.add_argument("--out", help="directory for the run, the partitions and results.json (default: a temp dir)")
    ap.add_argument("--png")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every row obeys the model's bounds: 1 <= imbalance, 1 < speed-up <= ranks "
                         "(the test suite's check of the script)")
    args = ap.parse_args()
    if any(r < 2 for r in args.ranks):
        fail("--ranks: every count must be at least 2")
    if not args.measure_mpi and (args.barrier_us is None or args.frame_us is None):
        fail("give --measure-mpi, or both --barrier-us and --frame-us")
    work = args.out or tempfile.mkdtemp(prefix="parallel_model.")
    os.makedirs(work, exist_ok=True)
    if args.measure_mpi:
        costs = measure_mpi(work)
    else:
        costs = {"barrier_us": args.barrier_us, "frame_us": args.frame_us,
                 "sendrecv_64B_us": args.sendrecv_us if args.sendrecv_us is not None else args.barrier_us}
    print("parallel_model: MPI costs %s" % json.dumps(costs))
    summary, sent, peer = run_single(args, work)
    print("parallel_model: %s: %d packet-hops in %.2f s of event loop, %.1f us simulated" %
          (summary["topology"], summary["packet_hops"], summary["wall_seconds"], summary["sim_time_ns"] / 1e3))
    rows = []
    print("\n| ranks | rule | lookahead (ns) | windows | imbalance over the run (max/mean) | imbalance per "
          "counter window | cut frames / all | compute (s) | sync (s) | frames (s) | predicted (s) | speed-up |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.ranks:
        part, err = partition(args, n, work)
        if part is None:
            print("| %d | - | - | - | - | - | - | - | - | - | - | not partitionable: %s |" % (n, err))
            continue
        m = model(summary, sent, peer, part, costs)
        rows.append(m)
        print("| %d | %s | %.1f | %d | %.3f | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %.2f |" %
              (n, m["rule"], m["lookahead_ns"], m["windows"], m["imbalance"], m["imbalance_in_time"],
               m["cut_fraction"], m["compute_s"], m["sync_s"], m["frames_s"], m["predicted_s"], m["speedup"]))
    with open(os.path.join(work, "results.json"), "w", encoding="utf-8") as f:
        json.dump({"costs": costs, "single_wall_s": summary["wall_seconds"], "packet_hops": summary["packet_hops"],
                   "rows": rows}, f, indent=1)
    print("\nparallel_model: results in %s" % os.path.join(work, "results.json"))
    if args.check:
        bad = [r for r in rows if not (r["imbalance"] >= 1.0 and r["imbalance_in_time"] >= r["imbalance"] - 1e-9
                                       and 1.0 < r["speedup"] <= r["ranks"] and r["sync_s"] > 0 and r["frames_s"] > 0)]
        if bad or len(rows) != len(args.ranks):
            print("parallel_model: check failed: %s" % (bad or "a rank count was not partitionable"), file=sys.stderr)
            sys.exit(1)
        print("parallel_model: check passed (%d rows)" % len(rows))
    if args.png and rows:
        try:
            import matplotlib
        except ImportError:
            fail("--png needs matplotlib (Debian: python3-matplotlib, with /usr/bin/python3); the table is in "
                 + os.path.join(work, "results.json"))
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot([r["ranks"] for r in rows], [r["speedup"] for r in rows], marker="o", label="model")
        ax.plot([r["ranks"] for r in rows], [r["ranks"] for r in rows], ls="--", color="grey", label="linear")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("ranks")
        ax.set_ylabel("predicted speed-up")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.png, dpi=120)
        print("parallel_model: figure %s" % args.png)


if __name__ == "__main__":
    main()
