#!/usr/bin/env python3
"""Measures the speed-up of a run across processes (docs/parallel.md): the same scenario in one process
(causal order) and as N processes (mpirun -n N), alternated round by round on this machine.

For each run it reads summary.json's wall_seconds (the event loop; under mpirun rank 0's, which waits for the
slowest rank at every window) and times the whole command (building the fabric included: each rank builds all
of it). Prints per round and the median and range of each figure and of the speed-up over one process.

  scripts/parallel_speedup.py --netasic build/netasic --ranks 2 --rounds 3 --set topology.fat_tree.k=32
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run(netasic, ranks, sets, out):
    cmd = [netasic, "run", "--out", out, "--quiet", "--set", "sim.event_order=causal"]
    for s in sets:
        cmd += ["--set", s]
    env = None
    if ranks > 1:
        cmd = ["mpirun", "-n", str(ranks), "--bind-to", "none"] + cmd
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    total = time.monotonic() - t0
    if proc.returncode != 0:
        sys.exit(f"parallel_speedup: exit {proc.returncode}: {' '.join(cmd)}\n{proc.stderr}")
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    return summary["wall_seconds"], total, summary["packet_hops"], summary["events"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netasic", required=True)
    ap.add_argument("--ranks", type=int, nargs="+", default=[2], help="process counts to compare with one")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--set", action="append", default=[], dest="sets", help="KEY=VALUE for every run")
    args = ap.parse_args()
    counts = [1] + [r for r in args.ranks if r != 1]
    loop = {n: [] for n in counts}
    whole = {n: [] for n in counts}
    with tempfile.TemporaryDirectory(prefix="netasic-speedup-") as work:
        for rnd in range(args.rounds):
            order = counts if rnd % 2 == 0 else list(reversed(counts))
            for n in order:
                wall, total, hops, events = run(args.netasic, n, args.sets, os.path.join(work, f"r{rnd}n{n}"))
                loop[n].append(wall)
                whole[n].append(total)
                print(f"round {rnd + 1} ranks {n}: event loop {wall:.2f} s, whole run {total:.2f} s, "
                      f"{hops} packet-hops, {events} events", flush=True)
    print("\n| ranks | event loop (s): median (range) | whole run (s) | speed-up of the event loop | of the whole run |")
    print("|---:|---|---|---|---|")
    for n in counts:
        up = [a / b for a, b in zip(loop[1], loop[n])]
        upw = [a / b for a, b in zip(whole[1], whole[n])]
        print(f"| {n} | {statistics.median(loop[n]):.2f} ({min(loop[n]):.2f}-{max(loop[n]):.2f}) "
              f"| {statistics.median(whole[n]):.2f} ({min(whole[n]):.2f}-{max(whole[n]):.2f}) "
              f"| {statistics.median(up):.2f}x ({min(up):.2f}-{max(up):.2f}) "
              f"| {statistics.median(upw):.2f}x ({min(upw):.2f}-{max(upw):.2f}) |")


if __name__ == "__main__":
    main()
