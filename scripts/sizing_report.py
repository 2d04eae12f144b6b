#!/usr/bin/env python3
"""Tables and plots for docs/sizing.md from a table-size sweep's results.csv (`netasic sweep`).

For every group of points (the swept keys other than the size key and the seed), one row per table size:
p99 FCT (mean over seeds, and its ratio to the largest size's), what a smaller table costs (packets that
found it full, out-of-order packets, drains, collisions), and the measured occupancy (high water and the
time-weighted p99.99) beside the Flowcut paper's eq. 1 bound computed with the hold time L measured in
the same runs. The knee is the smallest size from which every larger one is within 5% of the largest's
p99 (as `netasic sweep --report knee`). Untracked lookups are per injected packet: in the full-switch
variant a packet meets a table at every switch of its path, so the figure can exceed 1.

  scripts/sizing_report.py out/sweeps/flowcut-ingress-k16/results.csv --kind flowcut \\
      --hosts-per-table 8 --link-gbps 400 [--plot docs/img/sizing-ingress-k16.png] [--md out.md]

--kind flowcut | letflow | flowsail chooses the columns. Plots need matplotlib (/usr/bin/python3 on Debian).

  scripts/sizing_report.py --occupancy-cdf RUN/tables.json --plot occupancy.png [--kind flowcut|letflow]

draws one run's occupancy over time instead: for every table with entries, the share of the stats window
it spent at or below each occupancy (tables.json occupancy_over_time.levels).
"""
import argparse
import csv
import math
import statistics
import sys
from collections import defaultdict

SIZE_KEYS = {"flowcut": "flowcut.table.entries", "letflow": "letflow.entries", "flowsail": "switch.fc.nft_entries"}
TOLERANCE = 0.05


def num(row, key):
    v = row.get(key, "")
    try:
        return float(v)
    except ValueError:
        return math.nan


def mean(values):
    values = [v for v in values if not math.isnan(v)]
    return statistics.fmean(values) if values else math.nan


def fmt(v, digits=0):
    if math.isnan(v):
        return "-"
    if digits == 0:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}"


def load(path, size_key):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("status") == "done"]
    if not rows:
        sys.exit(f"sizing_report: no finished points in {path}")
    if size_key not in rows[0]:
        sys.exit(f"sizing_report: {path} has no column {size_key} (is it the right --kind?)")
    # Swept keys: the columns before "status", except point, hash, the size key and the seed.
    cols = list(rows[0].keys())
    swept = [c for c in cols[: cols.index("status")] if c not in ("point", "hash", size_key, "sim.seed")]
    groups = defaultdict(lambda: defaultdict(list))
    for r in rows:
        g = tuple((k, r[k]) for k in swept)
        groups[g][int(float(r[size_key]))].append(r)
    return groups


def knee(sizes, p99):
    ref = p99[sizes[-1]]
    k = None
    for s in reversed(sizes):
        if p99[s] > ref * (1 + TOLERANCE):
            break
        k = s
    return k


def eq1_bound(hosts, link_gbps, hold_ns, mtu, flows_per_host):
    """Eq. 1: hosts x min(F, B*L/M), L the measured hold time."""
    per_host = link_gbps * 1e9 / 8 * hold_ns * 1e-9 / mtu
    return hosts * min(flows_per_host, per_host) if flows_per_host else hosts * per_host


def report(groups, kind, a):
    size_key = SIZE_KEYS[kind]
    out = []
    summary = []
    for g, by_size in sorted(groups.items()):
        sizes = sorted(by_size)
        p99 = {s: mean([num(r, "fct_p99_ns") for r in by_size[s]]) for s in sizes}
        k = knee(sizes, p99)
        # Keys that only follow another one (the zipped size of a workload, its stats window) stay out.
        label = ", ".join(f"{key.split('.')[-1]}={v}" for key, v in g
                          if not key.startswith("stats.") and key != "workload.size_bytes") or "all points"
        seeds = max(len(v) for v in by_size.values())
        out.append(f"\n**{label}** ({seeds} seeds; knee: {k if k is not None else 'none'})\n")
        if kind == "flowcut":
            out.append("| entries | p99 FCT (µs) | vs largest | untracked lookups per packet | out of order | drain share of FCT "
                       "| high water | occupancy p99.99 | hold time L avg / p99 (µs) | eq. 1 with L avg / p99 |")
            out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        elif kind == "letflow":
            out.append("| entries | p99 FCT (µs) | vs largest | collisions per packet | flowlets | high water | occupancy p99.99 |")
            out.append("|---:|---:|---:|---:|---:|---:|---:|")
        else:
            out.append("| entries | p99 FCT (µs) | vs largest | NFT collisions per packet | PAUSE frames | isolations "
                       "| NFT occupancy p99.99 | max |")
            out.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
        flows_per_host = a.flows_per_host
        if dict(g).get("workload.type") == "all_to_all":
            # F = flows per host: every host sends to every other (host links are counted per direction).
            r0 = by_size[sizes[-1]][0]
            flows_per_host = num(r0, "summary.flows.count") / (num(r0, "summary.links.host_links.count") / 2)
        for s in sizes:
            rs = by_size[s]
            m = lambda key: mean([num(r, key) for r in rs])  # noqa: E731
            ratio = p99[s] / p99[sizes[-1]] if p99[sizes[-1]] else math.nan
            mark = " **knee**" if s == k else ""
            injected = m("summary.packets.injected")
            if kind == "flowcut":
                untracked = m("summary.flowcut.table.untracked_packets")
                ooo = m("summary.packets.ooo_fraction")
                hold_avg, hold_p99 = m("summary.flowcut.hold_time_ns.avg"), m("summary.flowcut.hold_time_ns.p99")
                b_avg = eq1_bound(a.hosts_per_table, a.link_gbps, hold_avg, a.mtu, flows_per_host)
                b_p99 = eq1_bound(a.hosts_per_table, a.link_gbps, hold_p99, a.mtu, flows_per_host)
                out.append(f"| {s}{mark} | {fmt(p99[s] / 1000, 1)} | {fmt(ratio, 3)} | "
                           f"{fmt(untracked / injected, 3) if injected else '-'} | {fmt(100 * ooo, 3)}% | "
                           f"{fmt(100 * m('summary.flowcut.drain_fraction_of_fct'), 1)}% | "
                           f"{fmt(m('summary.flowcut.table.high_water'))} | {fmt(m('summary.flowcut.table.occupancy.p9999'))} | "
                           f"{fmt(hold_avg / 1000, 1)} / {fmt(hold_p99 / 1000, 1)} | {fmt(b_avg)} / {fmt(b_p99)} |")
            elif kind == "letflow":
                out.append(f"| {s}{mark} | {fmt(p99[s] / 1000, 1)} | {fmt(ratio, 3)} | "
                           f"{fmt(m('summary.letflow.collisions') / injected, 4) if injected else '-'} | "
                           f"{fmt(m('summary.letflow.flowlets'))} | {fmt(m('summary.letflow.table_high_water'))} | "
                           f"{fmt(m('summary.letflow.table_occupancy.p9999'))} |")
            else:
                out.append(f"| {s}{mark} | {fmt(p99[s] / 1000, 1)} | {fmt(ratio, 3)} | "
                           f"{fmt(m('summary.flow_control.nft_collisions') / injected, 4) if injected else '-'} | "
                           f"{fmt(m('summary.flow_control.pause_frames'))} | {fmt(m('summary.flow_control.isolations'))} | "
                           f"{fmt(m('summary.flow_control.nft_occupancy.p9999'))} | {fmt(m('summary.flow_control.nft_occupancy.max'))} |")
        summary.append((label, k, p99, sizes))
    return "\n".join(out) + "\n", summary


def plot(summary, kind, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, k, p99, sizes in summary:
        ax.plot(sizes, [p99[s] / 1000 for s in sizes], marker="o", label=label)
        if k is not None:
            ax.plot([k], [p99[k] / 1000], marker="*", markersize=14, color="black")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(f"{SIZE_KEYS[kind]} (entries)")
    ax.set_ylabel("p99 FCT (µs), mean over seeds")
    ax.set_title("p99 FCT against table size (star: knee, within 5% from there up)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def occupancy_cdf(tables_json, kind, path):
    import json
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(tables_json) as f:
        tables = json.load(f)["flowcut" if kind == "flowcut" else "flowlet"]
    tables = [t for t in tables if t.get("high_water", 0) > 0 and t.get("occupancy_over_time", {}).get("levels")]
    if not tables:
        sys.exit(f"sizing_report: no {kind} table with occupancy levels in {tables_json}")
    busiest = max(tables, key=lambda t: t["high_water"])
    fig, ax = plt.subplots(figsize=(7, 4))
    for t in tables:
        levels = t["occupancy_over_time"]["levels"]
        total = sum(w for _, w in levels)
        xs, ys, acc = [], [], 0
        for level, w in levels:
            acc += w
            xs.append(level)
            ys.append(acc / total)
        top = t is busiest
        ax.step(xs, ys, where="post", color="tab:red" if top else "tab:blue", alpha=1.0 if top else 0.25,
                linewidth=2 if top else 1, label=f"busiest table ({t['owner']})" if top else None)
    o = busiest["occupancy_over_time"]
    for name in ("p50", "p99", "p9999"):
        ax.axvline(o[name], color="gray", linestyle=":", linewidth=1)
        ax.text(o[name], 0.02, name, rotation=90, fontsize=7, color="gray")
    ax.set_xlabel("table occupancy (entries)")
    ax.set_ylabel("share of the stats window at or below")
    ax.set_title(f"occupancy over time, {len(tables)} tables that held entries (one line each)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results_csv", nargs="?")
    ap.add_argument("--kind", choices=sorted(SIZE_KEYS), default="flowcut")
    ap.add_argument("--occupancy-cdf", metavar="TABLES_JSON", help="plot one run's occupancy over time (needs --plot)")
    ap.add_argument("--hosts-per-table", type=float, default=8, help="hosts whose flows one table holds (eq. 1)")
    ap.add_argument("--link-gbps", type=float, default=400)
    ap.add_argument("--mtu", type=float, default=4096)
    ap.add_argument("--flows-per-host", type=float, default=0,
                    help="F of eq. 1 (0: unbounded, B*L/M decides); all_to_all groups take flows / hosts")
    ap.add_argument("--plot", help="PNG of p99 FCT against table size")
    ap.add_argument("--md", help="write the tables here instead of printing them")
    a = ap.parse_args()
    if a.occupancy_cdf:
        if not a.plot:
            ap.error("--occupancy-cdf needs --plot")
        occupancy_cdf(a.occupancy_cdf, a.kind, a.plot)
        return
    if not a.results_csv:
        ap.error("results_csv is needed (or --occupancy-cdf)")
    groups = load(a.results_csv, SIZE_KEYS[a.kind])
    text, summary = report(groups, a.kind, a)
    if a.md:
        with open(a.md, "w") as f:
            f.write(text)
    else:
        print(text)
    if a.plot:
        plot(summary, a.kind, a.plot)


if __name__ == "__main__":
    main()
