#!/usr/bin/python3
"""Plots the LetFlow path split of scripts/letflow_results.sh: the fast path's share of the sending flows
(mean over 1 ms windows, with the 10th-90th percentile range) against the flowlet timeout, one line per
variant, beside the paper's ideal 0.8 (Vanini et al., Fig. 7: 80 of 100 flows on the 40 Gb/s path).

  scripts/letflow_plot.py OUT_DIR [--png OUT_DIR/letflow-split.png] [--window-us 1000]

Reads every OUT_DIR/<variant>-to<timeout>.split that letflow_results.sh wrote.
"""
import argparse
import collections
import glob
import os
import re
import sys


def read_split(path, window_us):
    """The fast-path share (mean, p10, p90) of the block for `window_us` in one .split file."""
    block = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"-- windows of (\d+) us", line)
            if m:
                block = int(m.group(1))
                continue
            if block == window_us and line.startswith("fast-path share of the flows sending:"):
                v = dict(re.findall(r"(mean|p10|p90) ([0-9.]+)", line))
                return float(v["mean"]), float(v["p10"]), float(v["p90"])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out_dir")
    ap.add_argument("--png", default=None)
    ap.add_argument("--window-us", type=int, default=1000)
    args = ap.parse_args()
    series = collections.defaultdict(dict)
    for path in glob.glob(os.path.join(args.out_dir, "*-to*.split")):
        m = re.match(r"(.+)-to(\d+)\.split$", os.path.basename(path))
        share = read_split(path, args.window_us)
        if m and share:
            series[m.group(1)][int(m.group(2))] = share
    if not series:
        sys.exit(f"letflow_plot: no <variant>-to<timeout>.split with {args.window_us} us windows in {args.out_dir}")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for variant in sorted(series):
        pts = series[variant]
        ts = sorted(pts)
        mean = [pts[t][0] for t in ts]
        ax.errorbar(ts, mean, yerr=[[pts[t][0] - pts[t][1] for t in ts], [pts[t][2] - pts[t][0] for t in ts]],
                    marker="o", capsize=3, label=variant)
        print(variant, " ".join(f"{t} us: {pts[t][0]:.2f}" for t in ts))
    ax.axhline(0.8, color="grey", linestyle="--", label="ideal (paper, Fig. 7)")
    ax.set_xscale("log")
    ax.set_xlabel("flowlet timeout (us)")
    ax.set_ylabel("fast path's share of sending flows")
    ax.set_ylim(0.4, 1.0)
    ax.set_title(f"LetFlow, 100 TCP flows on 40 + 10 Gb/s paths ({args.window_us} us windows)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    png = args.png or os.path.join(args.out_dir, "letflow-split.png")
    fig.savefig(png, dpi=110)
    print(f"figure: {png}")


if __name__ == "__main__":
    main()
