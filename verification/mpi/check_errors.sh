#!/usr/bin/env bash
# A run across processes (mpirun -n 2 netasic run) with bad input: exit status 2, the message printed once (by
# the first rank, not by each), nothing written. Usage: check_errors.sh NETASIC
set -uo pipefail
netasic=$1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
expect() {  # NAME STATUS MESSAGE -- ARGS...
  local name=$1 status=$2 message=$3
  shift 4
  mpirun -n 2 "$netasic" run "$@" --out "$work/$name" >"$work/$name.out" 2>"$work/$name.err"
  local got=$?
  local count
  count=$(grep -c "netasic: error:" "$work/$name.err")
  if [ "$got" -ne "$status" ]; then echo "FAIL $name: exit $got, expected $status"; fail=1; fi
  if [ "$count" -ne 1 ]; then echo "FAIL $name: $count error lines, expected 1"; fail=1; fi
  if ! grep -q -- "$message" "$work/$name.err"; then echo "FAIL $name: no '$message' in:"; cat "$work/$name.err"; fail=1; fi
  if [ -e "$work/$name" ]; then echo "FAIL $name: $work/$name was written"; fail=1; fi
  [ $fail -eq 0 ] && echo "ok   $name"
}
expect unknown-key 2 "no.such.key" -- --set topology.fat_tree.k=4 --set no.such.key=1
expect wrong-rule 2 "rule group needs a dragonfly" -- --set topology.fat_tree.k=4 --set parallel.partition=group
expect refused 2 "nic.host_interface starts messages" -- --set topology.fat_tree.k=4 --set nic.host_interface=true
exit $fail
