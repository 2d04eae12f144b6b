#!/usr/bin/env python3
"""Checks that results do not depend on the partition of a run (docs/parallel.md).

Runs each reference scenario (verification/reference/scenarios.json) in the causal event order, once in one
process and once per rank count N:
  - by default with parallel.emulate_ranks = N: one process whose cut links hand their frames and credit
    returns over only when each window ends, as between processes;
  - with --mpi, as N processes (mpirun -n N --oversubscribe): one fabric across them.
flows.csv, ports.csv and tables.json must be byte-identical to the one-process run's, and summary.json's
figures equal (its simulated time, events, packet-hops, flows, packets, bytes, links and ports sections). A rank count the
partition rule cannot make on a scenario's topology (more ranks than pods), and with --mpi a scenario a run
across processes refuses, are reported as skipped, with the model's message.

  scripts/check_partition.py --netasic build/netasic                  # ranks 1 2 3 4, every scenario
  scripts/check_partition.py --netasic build/netasic --mpi --ranks 2 3 4
  scripts/check_partition.py --netasic build/netasic --ranks 2 --only ecmp-permutation --keep out/part
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

from check_reference import ROOT, load_scenarios

COMPARED = ("flows.csv", "ports.csv", "tables.json")


SKIPPED = ("ranks but the fabric has", "a run across processes (mpirun -n N, srun -n N):")


def run(netasic, scenario, ranks, out_dir, mpi):
    """ranks 0: one process; else N ranks, emulated or (mpi) as N processes."""
    cmd = [netasic, "run"]
    if scenario.get("config"):
        cmd.append(os.path.join(ROOT, scenario["config"]))
    sets = scenario.get("set", []) + ["sim.event_order=causal"]
    if ranks and not mpi:
        sets.append(f"parallel.emulate_ranks={ranks}")
    for assignment in sets:
        cmd += ["--set", assignment]
    cmd += ["--out", out_dir, "--quiet"]
    env = None
    session = None
    if ranks and mpi:
        cmd = ["mpirun", "--oversubscribe", "-n", str(ranks)] + cmd
        # Each mpirun gets a session directory of its own. By default all of a user's mpiruns share
        # /tmp/ompi.<host>.<uid>, and the first to finish removes it while another is creating its own
        # subdirectory in it ("A call to mkdir was unable to create the desired directory"), which fails
        # that run when two run side by side (-j 2). A short path: PMIx puts its sockets there.
        session = tempfile.mkdtemp(prefix="ompi-")
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
                   OMPI_MCA_orte_tmpdir_base=session, TMPDIR=session)
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    finally:
        if session:
            shutil.rmtree(session, ignore_errors=True)
    return proc.returncode, proc.stderr.strip(), " ".join(cmd)


def same(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


# summary.json's figures a run must reproduce whatever the partition (wall-clock figures, the parallel section
# and the mechanisms' own sections, which a run across processes leaves out, aside).
SUMMARY_COMPARED = ("sim_time_ns", "events", "packet_hops", "flows", "packets", "bytes", "links", "ports")


def summary_differs(a, b):
    with open(a) as fa, open(b) as fb:
        ja, jb = json.load(fa), json.load(fb)
    return [f"summary.json {k}" for k in SUMMARY_COMPARED if ja.get(k) != jb.get(k)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netasic", required=True, help="the netasic binary to run")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 3, 4])
    ap.add_argument("--only", action="append", default=[], help="run only this scenario (repeatable)")
    ap.add_argument("--keep", help="keep the outputs under this directory")
    ap.add_argument("--mpi", action="store_true", help="run N processes under mpirun instead of emulating N ranks")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    _, chosen = load_scenarios(args.only, "check_partition")
    if chosen is None:
        return 2
    work = args.keep or tempfile.mkdtemp(prefix="netasic-part-")
    try:
        def one(job):
            s, ranks = job
            out = os.path.join(work, s["name"], f"ranks{ranks}")
            os.makedirs(out, exist_ok=True)
            return job, run(args.netasic, s, ranks, out, args.mpi)

        jobs = [(s, r) for s in chosen for r in [0] + args.ranks]
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            results = dict(((s["name"], r), res) for (s, r), res in pool.map(one, jobs))
        failures = checked = skipped = 0
        for s in chosen:
            status, err, cmd = results[(s["name"], 0)]
            if status != 0:
                print(f"FAIL {s['name']} uncut: exit {status}: {cmd}\n{err}")
                failures += 1
                continue
            for r in args.ranks:
                status, err, cmd = results[(s["name"], r)]
                if status == 2 and any(reason in err for reason in SKIPPED):
                    reason = next(line for line in err.splitlines() if any(x in line for x in SKIPPED))
                    print(f"skip {s['name']} {r} ranks: {reason}")
                    skipped += 1
                    continue
                if status != 0:
                    print(f"FAIL {s['name']} {r} ranks: exit {status}: {cmd}\n{err}")
                    failures += 1
                    continue
                base, cut = os.path.join(work, s["name"], "ranks0"), os.path.join(work, s["name"], f"ranks{r}")
                moved = [n for n in COMPARED if not same(os.path.join(base, n), os.path.join(cut, n))]
                moved += summary_differs(os.path.join(base, "summary.json"), os.path.join(cut, "summary.json"))
                checked += 1
                if moved:
                    print(f"FAIL {s['name']} {r} ranks: {', '.join(moved)} differ from the uncut run")
                    failures += 1
                else:
                    print(f"ok   {s['name']} {r} ranks")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{checked - failures if checked >= failures else 0} identical, {failures} failed, {skipped} skipped")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
