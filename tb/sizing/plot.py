#!/usr/bin/python3
"""netasic plot: one PNG line plot from a sweep's results.csv (called by `netasic plot`).

Points with the same x (and series) value, e.g. several seeds, are averaged; failed points are skipped.
Exit status 2 on bad input (unknown column, non-numeric values), naming the column.
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

NS_COLUMNS = {"fct_avg_ns", "fct_p99_ns", "sim_time_ns"}


def fail(msg):
    print(f"netasic: error: plot: {msg}", file=sys.stderr)
    sys.exit(2)


def number(text, column):
    try:
        return float(text)
    except ValueError:
        fail(f"column '{column}': '{text}' is not a number")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("csv")
    ap.add_argument("--x", required=True)
    ap.add_argument("--y", required=True)
    ap.add_argument("--series")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title")
    ap.add_argument("--logx", action="store_true")
    a = ap.parse_args()
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail(f"{a.csv} has no rows")
    for col in [a.x, a.y] + ([a.series] if a.series else []):
        if col not in rows[0]:
            fail(f"unknown column '{col}' (columns: {', '.join(rows[0].keys())})")
    lines = {}
    for r in rows:
        if r.get("status", "done") != "done" or r[a.y] == "":
            continue
        key = r[a.series] if a.series else ""
        x = number(r[a.x], a.x)
        lines.setdefault(key, {}).setdefault(x, []).append(number(r[a.y], a.y))
    if not lines:
        fail("no completed points to plot")
    scale, ylabel = (1e-3, a.y.replace("_ns", "") + " (us)") if a.y in NS_COLUMNS else (1.0, a.y)
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)

    def order(k):
        try:
            return (0, float(k), k)
        except ValueError:
            return (1, 0.0, k)

    for key in sorted(lines, key=order):
        pts = sorted(lines[key].items())
        xs = [p[0] for p in pts]
        ys = [sum(v) / len(v) * scale for _, v in pts]
        ax.plot(xs, ys, marker="o", label=f"{a.series}={key}" if a.series else None)
    if a.logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(a.x)
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if a.series:
        ax.legend(fontsize="small")
    ax.set_title(a.title or f"{a.y} vs {a.x}")
    fig.tight_layout()
    fig.savefig(a.out)


if __name__ == "__main__":
    main()
