#!/usr/bin/python3
"""Plots the Flowcut comparison of docs/results-flowcut.md: for each scenario that scripts/compare_routing.py
ran (one output directory per scenario), the average and p99 FCT of every policy over ECMP's (`minimal` on a
dragonfly), the mean over the seeds found.

  scripts/flowcut_plot.py DIR [DIR...] --png docs/img/flowcut-results.png

Each DIR holds <label>-s<seed>/summary.json (or <label>/summary.json for one seed), as compare_routing.py
writes them; the scenario's name is the directory's name.
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

ORDER = ["spray", "letflow-0.5us", "letflow-2us", "letflow-20us", "ugal", "flowcut-full_switch",
         "flowcut-ingress_only", "flowcut-nic_only"]


def read_dir(d):
    """label -> (mean avg FCT, mean p99 FCT) over the seeds."""
    runs = collections.defaultdict(list)
    for path in glob.glob(os.path.join(d, "*", "summary.json")):
        label = re.sub(r"-s\d+$", "", os.path.basename(os.path.dirname(path)))
        with open(path, encoding="utf-8") as f:
            fct = json.load(f)["flows"]["fct_ns"]
        runs[label].append((fct["avg"], fct["p99"]))
    return {k: (sum(a for a, _ in v) / len(v), sum(p for _, p in v) / len(v)) for k, v in runs.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--png", required=True)
    args = ap.parse_args()
    data = {}
    for d in args.dirs:
        r = read_dir(d)
        base = r.get("ecmp") or r.get("minimal")
        if not base:
            sys.exit(f"flowcut_plot: no ecmp or minimal run in {d}")
        data[os.path.basename(os.path.normpath(d))] = {k: (v[0] / base[0], v[1] / base[1]) for k, v in r.items()}
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels = [l for l in ORDER if any(l in v for v in data.values())]
    scenarios = list(data)
    fig, axes = plt.subplots(1, 2, figsize=(15, 4.8), sharey=False)
    width = 0.8 / len(labels)
    for ax, idx, title in ((axes[0], 0, "average FCT / ECMP's"), (axes[1], 1, "p99 FCT / ECMP's")):
        for i, label in enumerate(labels):
            xs = [s + (i - len(labels) / 2 + 0.5) * width for s in range(len(scenarios))]
            ys = [data[sc].get(label, (float("nan"), float("nan")))[idx] for sc in scenarios]
            ax.bar(xs, ys, width, label=label)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(range(len(scenarios)))
        ax.set_xticklabels(scenarios, rotation=15, fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
    axes[1].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)
    for sc in scenarios:
        print(sc, " ".join(f"{l}={data[sc][l][1]:.2f}" for l in labels if l in data[sc]))
    print(f"figure: {args.png}", file=sys.stderr)


if __name__ == "__main__":
    main()
