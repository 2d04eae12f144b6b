#!/usr/bin/env bash
# CTest `slurm`: examples/slurm/one-fabric.sbatch on a single-node Slurm cluster started on this machine
# (scripts/with_local_slurm.sh): one fabric across 2 tasks (srun, PMIx) gives the flows.csv, ports.csv and
# tables.json of one process in the causal order. Needs root, slurm-wlm/munge and an MPI build.
# Usage: slurm_one_fabric.sh NETASIC_BINARY
set -euo pipefail
netasic=$(readlink -f "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d /tmp/netasic-slurm-fabric.XXXXXX)
chmod 755 "$out"
trap 'rm -rf "$out"' EXIT
cd "$out"
sets=(--set topology.fat_tree.k=4 --set workload.size_bytes=262144)
bash "$root/scripts/with_local_slurm.sh" \
  sbatch --wait --partition netasic --ntasks=2 --output="$out/job.log" \
  "$root/examples/slurm/one-fabric.sbatch" "$netasic" "" "$out/slurm" "${sets[@]}" || { cat "$out/job.log"; exit 1; }
"$netasic" run "${sets[@]}" --set sim.event_order=causal --out "$out/one" --quiet >/dev/null
status=0
for f in flows.csv ports.csv tables.json; do
  if cmp -s "$out/one/$f" "$out/slurm/$f"; then echo "ok   $f"; else echo "FAIL $f differs"; status=1; fi
done
grep -q '"ranks": 2' "$out/slurm/summary.json" || { echo "FAIL summary.json does not record 2 ranks"; status=1; }
exit $status
