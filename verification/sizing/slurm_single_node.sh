#!/usr/bin/env bash
# CTest `slurm`: run a 4-point sweep through a single-node Slurm cluster on this machine
# (scripts/with_local_slurm.sh starts and stops it) with `--backend slurm`, run the same sweep with
# `--backend local`, and check the gathered results are equal apart from wall time. Needs root and
# slurm-wlm/munge.
# Usage: slurm_single_node.sh NETASIC_BINARY SWEEP.yaml
set -euo pipefail
netasic=$(readlink -f "$1")
sweep=$(readlink -f "$2")
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d /tmp/netasic-slurm-test.XXXXXX)
chmod 755 "$out"
trap 'rm -rf "$out"' EXIT
cd "$out"
bash "$here/../../scripts/with_local_slurm.sh" \
  "$netasic" sweep "$sweep" --backend slurm --partition netasic --time 00:10:00 --throttle 2 --out "$out/slurm-out"
"$netasic" sweep "$sweep" --backend local -j 2 --out "$out/local-out"
/usr/bin/python3 - "$out/slurm-out/results.csv" "$out/local-out/results.csv" <<'PY'
import csv, sys
# What differs between two identical runs: the wall-clock figures.
WALL_CLOCK = {"wall_seconds", "summary.wall_seconds", "summary.packet_hops_per_second"}
def rows(p):
    with open(p, newline="") as f:
        return [{k: v for k, v in r.items() if k not in WALL_CLOCK} for r in csv.DictReader(f)]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert len(a) == 4, f"expected 4 points, got {len(a)}"
assert all(r["status"] == "done" for r in a), a
if a != b:
    for x, y in zip(a, b):
        if x != y: print("slurm:", x, "\nlocal:", y)
    sys.exit("slurm test: slurm and local results differ")
print("slurm test: slurm and local results are equal (wall-clock figures ignored)")
PY
