#!/usr/bin/env bash
# Runs one command against a single-node Slurm cluster started on this machine for it: munged, slurmctld
# and slurmd, one partition `netasic` with every core, every file in a temporary directory, non-default
# ports. SLURM_CONF points at it while the command runs; the daemons this script started are stopped
# (by pid) when it ends, and the command's exit status is returned. Needs root and slurm-wlm/munge
# (scripts/install-deps.sh). A real cluster needs none of this: run `netasic sweep --backend slurm` there.
#   scripts/with_local_slurm.sh build/netasic sweep configs/sweeps/sizing/flowcut-dragonfly.yaml \
#       --backend slurm --partition netasic --report knee
# KEEP_SLURM_TMP=1 keeps the cluster's directory (logs) afterwards.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: with_local_slurm.sh COMMAND [ARG...]"; exit 2; }
for tool in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$tool" >/dev/null || { echo "with_local_slurm: $tool not found (scripts/install-deps.sh installs slurm-wlm and munge)"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { echo "with_local_slurm: needs root (slurmd runs jobs as the submitting user)"; exit 1; }

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
  if [ "${KEEP_SLURM_TMP:-}" = "" ]; then rm -rf "$tmp"; else echo "with_local_slurm: kept $tmp"; fi
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
[ -S "$tmp/munge/munge.socket" ] || { echo "with_local_slurm: munged did not start"; cat "$tmp/munge/munged.log"; exit 1; }

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
  echo "with_local_slurm: the node did not come up"; sinfo || true
  tail -n 30 "$tmp/log/"* || true
  exit 1
fi
echo "with_local_slurm: cluster up: $(sinfo -h -o '%P %D %T')"

"$@"
