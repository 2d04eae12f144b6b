#!/usr/bin/env bash
# cosim.trace = fst: a run with co-simulated blocks writes one FST waveform per block instance into its
# output directory, only for operations inside the window, and the run's results do not change.
# Usage: cosim_waves.sh NETASIC WORKDIR IMPL_KEY IMPL [--set KEY=VALUE]...
set -euo pipefail
netasic=$1
work=$2
key=$3
impl=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
run() {
  local name=$1
  shift
  if ! NETASIC_COSIM_TRACE=off "$netasic" run --quiet "$@" --set "$key=$impl" --out "$work/$name" >"$work/$name.log" 2>&1; then
    echo "FAIL: the $name run failed:"
    cat "$work/$name.log"
    exit 1
  fi
}
run plain "$@"
run waves "$@" --set cosim.trace=fst --set cosim.trace_start_ns=2000 --set cosim.trace_end_ns=4000
run late "$@" --set cosim.trace=fst --set cosim.trace_start_ns=1000000000
status=0
files=$(find "$work/waves" -name 'cosim_*.fst' | wc -l)
if [ "$files" -eq 0 ]; then
  echo "FAIL: cosim.trace = fst wrote no cosim_*.fst in $work/waves"
  status=1
fi
for f in "$work"/waves/cosim_*.fst; do
  # An FST file starts with its header block: block type 0 (FST_BL_HDR), then the 64-bit section length 329.
  if [ "$(od -An -tx1 -N9 "$f" | tr -d ' \n')" != "000000000000000149" ]; then
    echo "FAIL: $f does not start with an FST header block"
    status=1
  fi
done
if [ -n "$(find "$work/late" -name 'cosim_*.fst')" ]; then
  echo "FAIL: a window after the end of the run still wrote waveforms"
  status=1
fi
for f in flows.csv ports.csv; do
  if ! cmp -s "$work/plain/$f" "$work/waves/$f"; then
    echo "FAIL: $f changed with cosim.trace = fst"
    status=1
  fi
done
[ "$status" -eq 0 ] && echo "PASS: $files FST files ($(du -ch "$work"/waves/cosim_*.fst | tail -1 | cut -f1)), results unchanged"
exit $status
