#!/usr/bin/python3
"""Scenario checks of the NIC reorder engine at the scale of Martinez et al. (IPDPS 2005), on the 4x4 torus of
configs/reorder/torus4x4.yaml (adaptive up*/down* saturates near workload.load 0.15 under uniform traffic and
0.13 under bit-reversal; docs/results-reorder.md):
  1. deterministic routing (ecmp) needs no rearrange memory, even at saturation;
  2. under bit-reversal, the rearrange memory one NIC needs (MMS, nothing rejected) grows near saturation:
     at 90% of saturation it is at least 4x what it is at 20% (measured: 10x);
  3. with 32 KB messages at 90% of saturation, a dynamic 256 KB pool (128 KB per connection) rejects
     nothing and finishes the run sooner than static 2 KB partitions, which reject packets;
and the application sees every packet in order in every run.
Usage: reorder_paper_scale.py NETASIC SOURCE_DIR WORK_DIR  (exit 0 when every check holds)
"""
import json
import os
import subprocess
import sys

netasic, source, work = sys.argv[1:4]
config = os.path.join(source, "configs", "reorder", "torus4x4.yaml")
failures = []


def run(name, *sets):
    out = os.path.join(work, name)
    cmd = [netasic, "run", config, "--quiet", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json"), encoding="utf-8") as f:
        s = json.load(f)
    if s["flows"]["completed"] != s["flows"]["count"] or s["packets"]["app_out_of_order"] != 0:
        failures.append("%s: %d/%d flows completed, %d packets out of order at the application"
                        % (name, s["flows"]["completed"], s["flows"]["count"], s["packets"]["app_out_of_order"]))
    return s


def check(cond, text):
    print(("ok    " if cond else "FAIL  ") + text)
    if not cond:
        failures.append(text)


big = "nic.reorder.buffer_bytes=1048576"
det = run("det", "workload.type=bit_reversal", "workload.load=0.134", "routing.policy=ecmp", big)
check(det["reorder"]["max_buffer_per_connection_bytes"] == 0 and det["packets"]["out_of_order"] == 0,
      "ecmp at saturation: MBS %d B, %d packets out of order (expected 0, 0)"
      % (det["reorder"]["max_buffer_per_connection_bytes"], det["packets"]["out_of_order"]))

low = run("br-low", "workload.type=bit_reversal", "workload.load=0.027", big)
high = run("br-high", "workload.type=bit_reversal", "workload.load=0.121", big)
mms_low, mms_high = (s["reorder"]["max_memory_per_nic_bytes"] for s in (low, high))
check(low["reorder"]["rejections"] == 0 and high["reorder"]["rejections"] == 0, "1 MiB per connection rejects nothing")
check(mms_low > 0 and mms_high >= 4 * mms_low,
      "bit-reversal MMS grows near saturation: %d B at 20%%, %d B at 90%% (expected >= 4x)" % (mms_low, mms_high))

big_msgs = ["workload.type=uniform", "workload.load=0.1316", "workload.size_bytes=32768"]
static = run("static", *big_msgs)
dynamic = run("dynamic", *big_msgs, "nic.reorder.memory=dynamic", "nic.reorder.buffer_bytes=131072",
              "nic.reorder.pool_bytes=262144")
check(static["reorder"]["rejections"] > 0 and dynamic["reorder"]["rejections"] == 0,
      "32 KB messages: static 2 KB rejects %d packets, dynamic 256 KB rejects %d (expected > 0, 0)"
      % (static["reorder"]["rejections"], dynamic["reorder"]["rejections"]))
check(dynamic["sim_time_ns"] < static["sim_time_ns"],
      "32 KB messages: dynamic 256 KB finishes at %.0f us, static 2 KB at %.0f us (expected sooner)"
      % (dynamic["sim_time_ns"] / 1e3, static["sim_time_ns"] / 1e3))

sys.exit(1 if failures else 0)
