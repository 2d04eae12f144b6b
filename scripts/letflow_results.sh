#!/bin/sh
# The runs behind docs/results-letflow.md: configs/letflow/asymmetric-tcp.yaml for 1 s of simulated time at
# several flowlet timeouts, with Linux's 200 ms minimum RTO, with 1 ms, with 32 MiB queues (no drops,
# as the paper's Fig. 5), and with ECN marking and DCTCP window cuts instead of drops, the leaf's output
# ports traced, then scripts/letflow_split.py on each capture with 1 ms and 10 ms windows, and
# scripts/letflow_plot.py for the figure (out_dir/letflow-split.png). Run from the repository root.
#   scripts/letflow_results.sh [out_dir]   (about a minute per run; each capture, 2 GB, is deleted after use)
set -eu
out=${1:-out/letflow}
netasic=${NETASIC:-build/netasic}
mkdir -p "$out"
run_one() {  # name timeout extra-settings...
  name=$1 timeout=$2
  shift 2
  run="$out/$name-to$timeout"
  "$netasic" run configs/letflow/asymmetric-tcp.yaml --set sim.max_time_us=1000000 --set letflow.timeout_us="$timeout" \
    --set trace.enabled=true --set trace.switches=0 --set trace.max_packets=30000000 "$@" --out "$run" > "$run.log"
  rm -f "$run/trace.json"
  for w in 1000 10000; do
    echo "-- windows of $w us" >> "$run.split"
    python3 scripts/letflow_split.py "$run" --fast-node 202 --slow-node 203 --window-us $w --warmup-us 50000 >> "$run.split"
  done
  rm -f "$run/packets.pcap"
  python3 - "$run" <<'PY' >> "$run.split"
import json, sys
j = json.load(open(sys.argv[1] + "/summary.json"))
t, p = j["tcp"], j["packets"]
print(f"drops {p['dropped']}, out of order {p['out_of_order']} of {p['delivered']} delivered, timeouts "
      f"{t['timeouts']}, fast retransmits {t['fast_retransmits']}, spurious retransmissions "
      f"{t['spurious_retransmissions']}, max queue {j['ports']['max_queue_bytes']} B, goodput "
      f"{8 * j['bytes']['delivered'] / j['sim_time_ns']:.2f} Gb/s")
PY
  echo "== $run"
  cat "$run.split"
}
for timeout in 50 300 500 900; do
  run_one rto200ms "$timeout"
  run_one rto1ms "$timeout" --set nic.tcp.min_rto_us=1000
  run_one deep "$timeout" --set switch.egress_queue_bytes=33554432 --set switch.egress_queue_packets=32768
  run_one ecn "$timeout" --set nic.cc=dctcp --set switch.ecn_threshold_bytes=245000
done
/usr/bin/python3 scripts/letflow_plot.py "$out"
