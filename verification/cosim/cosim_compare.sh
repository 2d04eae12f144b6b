#!/usr/bin/env bash
# Runs one scenario twice, with a block from the C++ model and from the Verilated RTL (KEY = model, then
# IMPL: rtl, Verilator's C++ output, the default; or rtl_sc, its SystemC output; KEY is the block's impl
# key, switch.flowcut_table.impl unless --key says otherwise), and asserts the network saw the same thing:
#   flows.csv, ports.csv, tables.json   byte-identical
#   summary.json                        identical apart from wall-clock fields (wall_seconds,
#                                       packet_hops_per_second) and the scenario's impl key
#   RTL latency trace                   non-empty (the RTL answered), every measured == model
#   --positive PATH (repeatable)        the model run's summary.json value at jq PATH is > 0 (the scenario
#                                       exercises what the test is about, e.g. .flow_control.pause_frames)
# Usage: cosim_compare.sh NETASIC WORKDIR [--impl rtl|rtl_sc] [--key IMPL_KEY] [--positive PATH]...
#                         [CONFIG] [--set KEY=VALUE]...
set -euo pipefail
netasic=$1
work=$2
shift 2
rtl=rtl
key=switch.flowcut_table.impl
positive=()
while [ "${1:-}" = "--impl" ] || [ "${1:-}" = "--key" ] || [ "${1:-}" = "--positive" ]; do
  case $1 in
    --impl) rtl=$2 ;;
    --key) key=$2 ;;
    --positive) positive+=("$2") ;;
  esac
  shift 2
done
rm -rf "$work"
mkdir -p "$work"

for impl in model "$rtl"; do
  if ! NETASIC_COSIM_TRACE="$work/latency_$impl.csv" "$netasic" run --quiet "$@" \
      --set "$key=$impl" --out "$work/$impl" >"$work/$impl.log" 2>&1; then
    echo "FAIL: netasic run with $key=$impl failed:"
    cat "$work/$impl.log"
    exit 1
  fi
done

status=0
for f in flows.csv ports.csv tables.json; do
  if ! cmp -s "$work/model/$f" "$work/$rtl/$f"; then
    echo "FAIL: $f differs between the model and the RTL ($rtl) run (first differences):"
    diff "$work/model/$f" "$work/$rtl/$f" | head -20 || true
    status=1
  fi
done

norm='del(.wall_seconds, .packet_hops_per_second) | delpaths([["scenario"] + ($k | split("."))])'
jq -S --arg k "$key" "$norm" "$work/model/summary.json" >"$work/model/summary.norm.json"
jq -S --arg k "$key" "$norm" "$work/$rtl/summary.json" >"$work/$rtl/summary.norm.json"
if ! cmp -s "$work/model/summary.norm.json" "$work/$rtl/summary.norm.json"; then
  echo "FAIL: summary.json differs (wall-clock fields and the impl key excluded):"
  diff "$work/model/summary.norm.json" "$work/$rtl/summary.norm.json" | head -40 || true
  status=1
fi
for impl in model "$rtl"; do
  if [ "$(jq -r --arg k "$key" '.scenario | getpath($k | split("."))' "$work/$impl/summary.json")" != "$impl" ]; then
    echo "FAIL: the $impl run's summary does not record $key = $impl"
    status=1
  fi
done

for p in "${positive[@]}"; do
  v=$(jq -r "$p // 0" "$work/model/summary.json")
  if ! awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'; then
    echo "FAIL: the scenario does not exercise the block: $p = $v in the model run's summary.json"
    status=1
  else
    echo "$p = $v"
  fi
done

trace="$work/latency_$rtl.csv"
ops=$(($(wc -l <"$trace") - 1))
if [ "$ops" -le 0 ]; then
  echo "FAIL: the RTL run wrote no latency trace lines ($trace): the RTL table was not used"
  status=1
else
  bad=$(awk -F, 'NR > 1 && $6 != $7' "$trace" | wc -l)
  if [ "$bad" -ne 0 ]; then
    echo "FAIL: $bad operations with measured latency != model latency in $trace"
    status=1
  fi
  echo "RTL ($rtl) latency trace $trace: $ops operations"
  awk -F, 'NR > 1 { k = $3 " measured " $6 " model " $7; n[k]++ } END { for (k in n) printf "  %-40s %d\n", k, n[k] }' "$trace" | sort
fi
if [ -s "$work/latency_model.csv" ]; then
  echo "FAIL: the model run wrote RTL latency lines: the model run used the RTL"
  status=1
fi
[ "$status" -eq 0 ] && echo "PASS: model and RTL ($rtl) runs identical ($(($(wc -l <"$work/model/flows.csv") - 1)) flows)"
exit $status
