#!/usr/bin/env bash
# CTest `slurm`: start a single-node Slurm cluster on this machine (munged, slurmctld, slurmd, one
# partition; every file in a temporary directory, non-default ports), run a 4-point sweep through it with
# `--backend slurm`, run the same sweep with `--backend local`, check the gathered results are equal
# apart from wall time, and stop the daemons this script started (by pid). Needs root and slurm-wlm/munge.
# Usage: slurm_single_node.sh NETASIC_BINARY SWEEP.yaml
set -euo pipefail
netasic=$(readlink -f "$1")
sweep=$(readlink -f "$2")
for tool in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" >/dev/null || { echo "slurm test: $tool not found (scripts/install-deps.sh installs slurm-wlm and munge)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "slurm test: needs root (slurmd runs jobs as the submitting user)"; exit 1; }

tmp=$(mktemp -d /tmp/netasic-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  # Let the daemons stop their job steps first, then end every process this script started, by pid.
  [ -n "${SLURM_CONF:-}" ] && timeout 10 scontrol shutdown >/dev/null 2>&1 && sleep 2 || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
  if [ "${KEEP_SLURM_TMP:-}" = "" ]; then rm -rf "$tmp"; else echo "slurm test: kept $tmp"; fi
}
trap cleanup EXIT

# munge: our own key and socket.
mkdir -p "$tmp/munge"
chmod 755 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$tmp/munge/munge.key"
munged --force --foreground --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munge.seed" >"$tmp/munge/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -S "$tmp/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/munge.socket" ] || { echo "slurm test: munged did not start"; cat "$tmp/munge/munged.log"; exit 1; }

node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log"
cat >"$tmp/slurm.conf" <<CONF
ClusterName=netasic-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=netasic Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -i -f "$tmp/slurm.conf" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$tmp/slurm.conf" >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
ready=0
for _ in $(seq 120); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then ready=1; break; fi
  sleep 0.5
done
if [ $ready -ne 1 ]; then
  echo "slurm test: the node did not come up"; sinfo || true
  tail -n 30 "$tmp/log/"* || true
  exit 1
fi
echo "slurm test: cluster up: $(sinfo -h -o '%P %D %T')"

cd "$tmp"
"$netasic" sweep "$sweep" --backend slurm --partition netasic --time 00:10:00 --throttle 2 --out "$tmp/slurm-out"
"$netasic" sweep "$sweep" --backend local -j 2 --out "$tmp/local-out"
/usr/bin/python3 - "$tmp/slurm-out/results.csv" "$tmp/local-out/results.csv" <<'PY'
import csv, sys
def rows(p):
    with open(p, newline="") as f:
        return [{k: v for k, v in r.items() if k != "wall_seconds"} for r in csv.DictReader(f)]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert len(a) == 4, f"expected 4 points, got {len(a)}"
assert all(r["status"] == "done" for r in a), a
if a != b:
    for x, y in zip(a, b):
        if x != y: print("slurm:", x, "\nlocal:", y)
    sys.exit("slurm test: slurm and local results differ")
print("slurm test: slurm and local results are equal (wall time ignored)")
PY
