#!/usr/bin/python3
"""NIC reorder engine at the scale of Martinez et al., "In-Order Packet Delivery in Interconnection Networks
using Adaptive Routing" (IPDPS 2005): saturation, rearrange buffer needed vs load, and static 2 KB per
connection against a dynamic 256 KB pool. The tables of docs/results-reorder.md come from this script.

Usage:
  nice -n 10 scripts/reorder_results.py [--out DIR] [--netasic PATH] [--sections LIST] [--fresh]
                                        [--png FILE] [--networks LIST] [--seed N]

Sections (comma-separated, default all, in this order):
  saturation  per network, traffic pattern and routing (ecmp = deterministic, adaptive): the offered load
              grid, the accepted/offered ratio, and the saturation load (where accepted throughput stops
              following offered load: the ratio falls below 0.95)
  buffer      buffer needed vs load (fractions of the adaptive saturation load of that network and
              pattern), measured with a 1 MiB partition per connection so that nothing is rejected:
              MBS (one connection) in bytes and in 256-B packets, MMS (one NIC), out-of-order share
  msgsize     MBS vs message size on irregular16, uniform and bit-reversal traffic at 60% of saturation
  memory      deterministic, adaptive without reordering (Adap-OOO), Adap-LI / Adap-LW with static 2 KB
              per connection, Adap-LI with a dynamic 256 KB pool (128 KB cap per connection), for 2 KB
              and 32 KB messages at 50% and 90% of saturation: run completion time, FCT, waste, MBS,
              MMS, rejections

Every point is one `netasic run CONFIG --set ... --quiet --out DIR/points/<name>`, one at a time. A point
whose directory holds a summary.json written by the same command is reused (--fresh runs everything
again). --seed sets sim.seed, which draws the irregular topologies as well as the traffic (default 1).
The Markdown goes to stdout and to DIR/tables.md; the saturation loads to DIR/saturation.json.
Python 3 standard library only (matplotlib only for --png).
"""

import argparse
import csv
import json
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_NETASIC = os.path.join(ROOT, "build", "netasic")

# name -> (config, offered-load grid for the saturation search, switches)
NETWORKS = {
    "irregular16": ("configs/reorder/irregular16-uniform.yaml",
                    [0.02, 0.04, 0.06, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.18, 0.2], 16),
    "irregular64": ("configs/reorder/irregular64.yaml",
                    [0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.045, 0.05, 0.06, 0.08], 64),
    "torus4x4": ("configs/reorder/torus4x4.yaml",
                 [0.02, 0.04, 0.06, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.18, 0.2, 0.25], 16),
}
PATTERNS = ["uniform", "bit_reversal"]
ROUTINGS = ["ecmp", "adaptive"]
DURATION_US = 2000          # arrival window of every run
RATIO = 0.95                # saturated once accepted < RATIO x offered (in the window's last 4/5)
BIG_BUFFER = 1048576        # "large buffer": 1 MiB per connection, nothing is rejected
PACKET = 256                # bytes of one full packet (192 B payload + 64 B header) = one cell
BUFFER_FRACTIONS = [0.2, 0.4, 0.6, 0.8, 0.9, 1.0]
MEMORY_FRACTIONS = [0.5, 0.9]
MEMORY_SIZES = [2048, 32768]
MSG_SIZES = [192, 384, 768, 2048, 8192, 32768]

VARIANTS = [  # label, sets (the config's defaults: reorder transport, Adap-LI, static 2 KB)
    ("DET (ecmp)", ["routing.policy=ecmp", "nic.transport=basic"]),
    ("Adap-OOO", ["routing.policy=adaptive", "nic.transport=basic"]),
    ("Adap-LI static 2 KB", ["routing.policy=adaptive"]),
    ("Adap-LW static 2 KB", ["routing.policy=adaptive", "nic.reorder.injection=adap_lw"]),
    ("Adap-LI dynamic 256 KB", ["routing.policy=adaptive", "nic.reorder.memory=dynamic",
                                "nic.reorder.buffer_bytes=131072", "nic.reorder.pool_bytes=262144"]),
]


class Runner:
    def __init__(self, netasic, out, fresh, seed):
        self.netasic, self.out, self.fresh, self.seed = netasic, out, fresh, seed
        self.runs = self.reused = 0
        self.wall = 0.0
        self.done = set()  # points run in this invocation (--fresh runs each of them once)

    def run(self, name, config, sets):
        """Runs (or reuses) one point; returns (summary, flows rows)."""
        d = os.path.join(self.out, "points", name)
        os.makedirs(d, exist_ok=True)
        cmd = [self.netasic, "run", config]
        for s in sets:
            cmd += ["--set", s]
        cmd += ["--seed", str(self.seed), "--quiet", "--out", d]
        text = " ".join(shlex.quote(c) for c in cmd)
        summary_path, cmd_path = os.path.join(d, "summary.json"), os.path.join(d, "cmd.txt")
        cached = ((not self.fresh or name in self.done) and os.path.exists(summary_path)
                  and os.path.exists(cmd_path) and open(cmd_path, encoding="utf-8").read() == text)
        self.done.add(name)
        if not cached:
            for p in (summary_path, cmd_path):
                if os.path.exists(p):
                    os.remove(p)
            t0 = time.monotonic()
            proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            self.wall += time.monotonic() - t0
            self.runs += 1
            if proc.returncode != 0:
                sys.exit("reorder_results: %s exited %d:\n%s" % (text, proc.returncode, proc.stderr.strip()))
            with open(cmd_path, "w", encoding="utf-8") as f:
                f.write(text)
        else:
            self.reused += 1
        with open(summary_path, encoding="utf-8") as f:
            summary = json.load(f)
        with open(os.path.join(d, "flows.csv"), encoding="utf-8") as f:
            flows = list(csv.DictReader(f))
        if summary["flows"]["completed"] != summary["flows"]["count"] or summary["hit_time_limit"]:
            sys.exit("reorder_results: %s left flows incomplete" % text)
        if summary["packets"].get("app_out_of_order", 0):
            sys.exit("reorder_results: %s delivered packets out of order to the application" % text)
        return summary, flows


def window_ratio(flows, duration_us):
    """Accepted / offered bytes in the window's last 4/5 (the first fifth is warm-up): bytes of messages
    finished in it over bytes of messages that arrived in it; and the accepted bytes per ns."""
    lo, hi = duration_us * 1e3 / 5, duration_us * 1e3
    offered = sum(int(r["size_bytes"]) for r in flows if lo <= float(r["start_ns"]) < hi)
    accepted = sum(int(r["size_bytes"]) for r in flows if r["finish_ns"] and lo <= float(r["finish_ns"]) < hi)
    return (accepted / offered if offered else 0.0), accepted / (hi - lo)


def fmt_load(x):
    return ("%.4f" % x).rstrip("0").rstrip(".")


def point_name(net, pattern, label, load, size=2048):
    return "%s-%s-%s-L%s-S%d" % (net, pattern, label.replace(" ", "_"), fmt_load(load), size)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def base_sets(pattern, load, size=2048):
    return ["workload.type=" + pattern, "workload.load=" + fmt_load(load), "workload.size_bytes=%d" % size,
            "workload.duration_us=%d" % DURATION_US]


def saturation_section(r, nets, emit):
    sat = {}
    emit("## Saturation\n")
    emit("Accepted/offered: bytes of messages finished over bytes of messages that arrived, both in the "
         "last 4/5 of the %d µs arrival window; saturation: where the ratio falls below %.2f (linear "
         "interpolation between the grid points around it). 1 MiB per connection: nothing is rejected.\n"
         % (DURATION_US, RATIO))
    for net in nets:
        config, grid, switches = NETWORKS[net]
        rows = []
        for pattern in PATTERNS:
            for routing in ROUTINGS:
                ratios = []
                for load in grid:
                    s, flows = r.run(point_name(net, pattern, routing, load), config,
                                     base_sets(pattern, load) + ["routing.policy=" + routing,
                                                                 "nic.reorder.buffer_bytes=%d" % BIG_BUFFER])
                    ratio, acc = window_ratio(flows, DURATION_US)
                    ratios.append((load, ratio, acc / switches, s["flows"]["fct_ns"]["avg"] / 1e3))
                sat_load = None
                for i, (load, ratio, _, _) in enumerate(ratios):
                    if ratio < RATIO:
                        if i == 0:
                            sat_load = load
                        else:
                            l0, q0 = ratios[i - 1][0], ratios[i - 1][1]
                            sat_load = l0 + (load - l0) * (q0 - RATIO) / (q0 - ratio)
                        break
                sat[(net, pattern, routing)] = sat_load
                cells = ["%.2f" % q for (_, q, _, _) in ratios]
                rows.append([pattern, routing] + cells +
                            ["%.3f" % sat_load if sat_load is not None else "> %s" % fmt_load(grid[-1])])
                rows.append(["", "accepted B/ns/switch"] + ["%.3f" % a for (_, _, a, _) in ratios] + [""])
                rows.append(["", "mean FCT µs"] + ["%.0f" % f for (_, _, _, f) in ratios] + [""])
        emit("### %s (`%s`)\n" % (net, config))
        emit(md_table(["traffic", "routing"] + ["load %s" % fmt_load(l) for l in grid] + ["saturation"], rows))
        emit("")
    rows = []
    for net in nets:
        for pattern in PATTERNS:
            d, a = sat.get((net, pattern, "ecmp")), sat.get((net, pattern, "adaptive"))
            rows.append([net, pattern, "%.3f" % d if d else "-", "%.3f" % a if a else "-",
                         "%.3f" % (a * 1.25) if a else "-", "%+.0f%%" % (100 * (a - d) / d) if a and d else "-"])
    emit("### Saturation loads\n")
    emit("Load per host as a fraction of its 2.5 Gb/s link; B/ns/switch = load x 4 hosts x 0.3125 B/ns (the "
         "paper's unit, every host sending).\n")
    emit(md_table(["network", "traffic", "deterministic (ecmp)", "adaptive", "adaptive, B/ns/switch",
                   "adaptive vs deterministic"], rows))
    emit("")
    return sat


def buffer_section(r, nets, sat, emit, png):
    emit("## Buffer needed vs load (adaptive routing, 1 MiB per connection)\n")
    emit("Loads are fractions of the adaptive saturation load of the network and pattern above. MBS: the most "
         "rearrange memory one connection (one 2 KB message, 11 packets) held; MMS: the most one NIC held. "
         "Messages OOO: messages with at least one packet that arrived out of order. Rejections: 0 in every "
         "run (checked).\n")
    curves = {}
    for net in nets:
        config, _, switches = NETWORKS[net]
        rows = []
        for pattern in PATTERNS:
            s_load = sat.get((net, pattern, "adaptive"))
            if s_load is None:
                continue
            for frac in BUFFER_FRACTIONS:
                load = round(s_load * frac, 4)
                s, flows = r.run(point_name(net, pattern, "adaptive", load), config,
                                 base_sets(pattern, load) + ["routing.policy=adaptive",
                                                             "nic.reorder.buffer_bytes=%d" % BIG_BUFFER])
                ro, p = s["reorder"], s["packets"]
                if ro["rejections"]:
                    sys.exit("reorder_results: %s %s load %s rejected packets with a 1 MiB buffer" % (net, pattern, load))
                ratio, acc = window_ratio(flows, DURATION_US)
                mbs, mms = ro["max_buffer_per_connection_bytes"], ro["max_memory_per_nic_bytes"]
                msg_ooo = sum(1 for f in flows if int(f["ooo_packets"]) > 0) / len(flows)
                rows.append([pattern, "%d%%" % round(frac * 100), fmt_load(load), "%.3f" % (acc / switches),
                             "%.2f" % ratio, mbs, "%.1f" % (mbs / PACKET), mms, "%.1f" % (mms / PACKET),
                             "%.2f%%" % (100 * p["ooo_fraction"]), "%.1f%%" % (100 * msg_ooo), p["max_ooo_degree"],
                             "%.0f" % (s["flows"]["fct_ns"]["avg"] / 1e3)])
                curves.setdefault((net, pattern), []).append((frac, mbs / PACKET, mms / PACKET))
        emit("### %s\n" % net)
        emit(md_table(["traffic", "of sat.", "load", "accepted B/ns/sw", "acc/off", "MBS B", "MBS pkts",
                       "MMS B", "MMS pkts", "OOO packets", "messages OOO", "max degree", "mean FCT µs"], rows))
        emit("")
    # Deterministic reference: one point per network and pattern at saturation.
    rows = []
    for net in nets:
        config = NETWORKS[net][0]
        for pattern in PATTERNS:
            s_load = sat.get((net, pattern, "adaptive"))
            if s_load is None:
                continue
            load = round(s_load, 4)
            s, _ = r.run(point_name(net, pattern, "ecmp", load), config,
                         base_sets(pattern, load) + ["routing.policy=ecmp", "nic.reorder.buffer_bytes=%d" % BIG_BUFFER])
            rows.append([net, pattern, fmt_load(load), s["reorder"]["max_buffer_per_connection_bytes"],
                         s["packets"]["out_of_order"]])
    emit("Deterministic routing (ecmp: one up*/down* path per message) at the adaptive saturation load:\n")
    emit(md_table(["network", "traffic", "load", "MBS B", "OOO packets"], rows))
    emit("")
    if png and curves:
        plot(curves, png)
        emit("Plot written to `%s`.\n" % os.path.relpath(png, ROOT))


def pairs_section(r, nets, sat, emit):
    emit("## Pair connections: buffer needed vs load (adaptive routing, one-packet messages)\n")
    emit("`nic.reorder.connection=pair`: every message from one source to one NIC shares one rearrange "
         "connection and one sequence space, as the paper's connections do. Messages are one 256-byte packet "
         "(the paper's synthetic traffic). Loads are fractions of the adaptive saturation load found above (with "
         "2 KB messages). MBS: the most one connection (pair) held, 1 MiB per connection so nothing is rejected "
         "(checked).\n")
    for net in nets:
        config = NETWORKS[net][0]
        rows = []
        for pattern in PATTERNS:
            s_load = sat.get((net, pattern, "adaptive"))
            if s_load is None:
                continue
            for frac in BUFFER_FRACTIONS + [1.2]:
                load = round(s_load * frac, 4)
                s, _ = r.run(point_name(net, pattern, "pair", load, size=192), config,
                             base_sets(pattern, load, size=192) + ["routing.policy=adaptive",
                                                                   "nic.reorder.connection=pair",
                                                                   "nic.reorder.buffer_bytes=%d" % BIG_BUFFER])
                ro, pk = s["reorder"], s["packets"]
                if ro["rejections"]:
                    sys.exit("reorder_results: %s %s load %s rejected packets with a 1 MiB buffer" % (net, pattern, load))
                mbs, mms = ro["max_buffer_per_connection_bytes"], ro["max_memory_per_nic_bytes"]
                rows.append([pattern, "%d%%" % round(frac * 100), fmt_load(load), mbs, "%.1f" % (mbs / PACKET),
                             "%.1f" % (mms / PACKET), "%.3f%%" % (100 * pk["ooo_fraction"]), pk["max_ooo_degree"]])
        emit("### %s\n" % net)
        emit(md_table(["traffic", "of sat.", "load", "MBS B", "MBS pkts", "MMS pkts", "OOO packets", "max degree"], rows))
        emit("")


def plot(curves, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for (net, pattern), pts in sorted(curves.items()):
        x = [100 * f for f, _, _ in pts]
        style = "-o" if pattern == "uniform" else "--s"
        axes[0].plot(x, [m for _, m, _ in pts], style, label="%s %s" % (net, pattern))
        axes[1].plot(x, [m for _, _, m in pts], style, label="%s %s" % (net, pattern))
    axes[0].set_title("MBS: one connection (2 KB message)")
    axes[1].set_title("MMS: one NIC (all its connections)")
    for ax in axes:
        ax.set_xlabel("offered load, % of adaptive saturation")
        ax.set_ylabel("256-B packets")
        ax.grid(True, alpha=0.3)
    axes[1].set_yscale("log")
    axes[1].legend(fontsize=7)
    fig.suptitle("Rearrange buffer needed vs load (adaptive up*/down*, nothing rejected)")
    fig.tight_layout()
    os.makedirs(os.path.dirname(png), exist_ok=True)
    fig.savefig(png, dpi=110)


def msgsize_section(r, sat, emit):
    net = "irregular16"
    if (net, "uniform", "adaptive") not in sat:
        return
    config = NETWORKS[net][0]
    emit("## MBS vs message size (%s, adaptive, 60%% of saturation, 1 MiB per connection)\n" % net)
    rows = []
    for pattern in PATTERNS:
        load = round(sat[(net, pattern, "adaptive")] * 0.6, 4)
        for size in MSG_SIZES:
            s, _ = r.run(point_name(net, pattern, "adaptive", load, size), config,
                         base_sets(pattern, load, size) + ["routing.policy=adaptive",
                                                           "nic.reorder.buffer_bytes=%d" % BIG_BUFFER])
            ro, p = s["reorder"], s["packets"]
            pkts = -(-size // 192)
            rows.append([pattern, fmt_load(load), size, pkts, ro["max_buffer_per_connection_bytes"],
                         "%.1f" % (ro["max_buffer_per_connection_bytes"] / PACKET), ro["max_memory_per_nic_bytes"],
                         "%.2f%%" % (100 * p["ooo_fraction"]), p["max_ooo_degree"]])
    emit(md_table(["traffic", "load", "message B", "packets", "MBS B", "MBS pkts", "MMS B", "OOO packets",
                   "max degree"], rows))
    emit("")


def memory_section(r, nets, sat, emit):
    emit("## Static 2 KB per connection vs dynamic 256 KB pool\n")
    emit("Completion: simulated time until the last message of the %d µs arrival window is delivered "
         "(the paper's trace execution time); vs DET: its reduction against deterministic routing (positive "
         "is faster). FCT: message completion time. Waste: resent data and ACK/NACK bytes over all bytes "
         "received by NICs. Loads are fractions of the adaptive saturation load for 2 KB messages. DET: ecmp "
         "with the basic transport (nothing to rearrange); Adap-OOO: adaptive routing with the basic transport, "
         "which lets packets arrive out of order without a rearrange buffer (the paper's ADAP_OOO); Adap-LI, "
         "Adap-LW: the rearrange engine with that injection control.\n"
         % DURATION_US)
    for net in nets:
        config = NETWORKS[net][0]
        for size in MEMORY_SIZES:
            rows = []
            for pattern in PATTERNS:
                s_load = sat.get((net, pattern, "adaptive"))
                if s_load is None:
                    continue
                for frac in MEMORY_FRACTIONS:
                    load = round(s_load * frac, 4)
                    det_time = None
                    for label, sets in VARIANTS:
                        s, _ = r.run(point_name(net, pattern, label, load, size), config,
                                     base_sets(pattern, load, size) + sets)
                        t = s["sim_time_ns"] / 1e3
                        if det_time is None:
                            det_time = t
                        ro = s.get("reorder")
                        rows.append([pattern, "%d%%" % round(frac * 100), label, "%.0f" % t,
                                     "%+.1f%%" % (100 * (det_time - t) / det_time),
                                     "%.1f" % (s["flows"]["fct_ns"]["avg"] / 1e3),
                                     "%.1f" % (s["flows"]["fct_ns"]["p99"] / 1e3),
                                     "%.1f%%" % (100 * ro["waste_fraction"]) if ro else "-",
                                     ro["max_buffer_per_connection_bytes"] if ro else "-",
                                     ro["max_memory_per_nic_bytes"] if ro else "-",
                                     ro["rejections"] if ro else "-"])
            emit("### %s, %d B messages\n" % (net, size))
            emit(md_table(["traffic", "load", "mechanism", "completion µs", "vs DET", "mean FCT µs",
                           "p99 FCT µs", "waste", "MBS B", "MMS B", "rejections"], rows))
            emit("")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "reorder-results"))
    ap.add_argument("--netasic", default=DEFAULT_NETASIC)
    ap.add_argument("--sections", default="saturation,buffer,msgsize,memory,pairs")
    ap.add_argument("--networks", default=",".join(NETWORKS))
    ap.add_argument("--fresh", action="store_true", help="run every point again")
    ap.add_argument("--seed", type=int, default=1, help="sim.seed: topology and traffic (default 1)")
    ap.add_argument("--png", default="", help="also plot MBS/MMS vs load into this PNG (matplotlib)")
    args = ap.parse_args()
    sections = args.sections.split(",")
    nets = [n for n in args.networks.split(",") if n]
    for n in nets:
        if n not in NETWORKS:
            sys.exit("reorder_results: unknown network %s (known: %s)" % (n, ", ".join(NETWORKS)))
    os.makedirs(args.out, exist_ok=True)
    r = Runner(os.path.abspath(args.netasic), os.path.abspath(args.out), args.fresh, args.seed)
    lines = []

    def emit(text):
        print(text, flush=True)
        lines.append(text)

    t0 = time.monotonic()
    # Every later section needs the saturation loads; they come from the (cached) saturation runs.
    sat = saturation_section(r, nets, emit if "saturation" in sections else (lambda _t: None))
    with open(os.path.join(args.out, "saturation.json"), "w", encoding="utf-8") as f:
        json.dump({"%s/%s/%s" % k: v for k, v in sat.items()}, f, indent=2, sort_keys=True)
    if "buffer" in sections:
        buffer_section(r, nets, sat, emit, os.path.abspath(args.png) if args.png else "")
    if "msgsize" in sections and "irregular16" in nets:
        msgsize_section(r, sat, emit)
    if "memory" in sections:
        memory_section(r, nets, sat, emit)
    if "pairs" in sections:
        pairs_section(r, nets, sat, emit)
    emit("_%d runs (%.0f s of simulation processes), %d reused; %.0f s in all._"
         % (r.runs, r.wall, r.reused, time.monotonic() - t0))
    with open(os.path.join(args.out, "tables.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
