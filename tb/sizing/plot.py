#!/usr/bin/python3
"""netasic plot: one PNG line plot from a CSV with a header line: a sweep's results.csv or a run's
timeseries.csv (called by `netasic plot`).

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


def number(text, column, line):
    if text is None:
        fail(f"line {line}: the row has no '{column}' field (fewer fields than the header)")
    try:
        return float(text)
    except ValueError:
        fail(f"line {line}: column '{column}': '{text}' is not a number")


def read_rows(path):
    """The CSV's rows as dicts; a file that is missing or not text CSV is bad input, not a traceback."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            sample = f.read(4096)
            f.seek(0)
            if "\0" in sample:
                fail(f"{path} is not a CSV file (it holds binary data)")
            return list(csv.DictReader(f))
    except IsADirectoryError:
        fail(f"{path} is a directory, not a CSV file")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    except UnicodeDecodeError:
        fail(f"{path} is not a CSV file (not UTF-8 text)")
    except csv.Error as e:
        fail(f"{path} is not a valid CSV file: {e}")


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
    rows = read_rows(a.csv)
    if not rows:
        fail(f"{a.csv} has no rows")
    if None in rows[0] or len(rows[0]) < 2:
        fail(f"{a.csv} is not a CSV file with a header line of column names")
    for col in [a.x, a.y] + ([a.series] if a.series else []):
        if col not in rows[0]:
            fail(f"unknown column '{col}' (columns: {', '.join(rows[0].keys())})")
    lines = {}
    for line, r in enumerate(rows, start=2):
        if r.get("status", "done") != "done" or r[a.y] == "":
            continue
        key = r[a.series] if a.series else ""
        x = number(r[a.x], a.x, line)
        lines.setdefault(key, {}).setdefault(x, []).append(number(r[a.y], a.y, line))
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
    # A legend of more than a dozen lines (a time series of every port) hides the plot: name the count instead.
    if a.series and len(lines) <= 12:
        ax.legend(fontsize="small")
    title = a.title or f"{a.y} vs {a.x}"
    if a.series and len(lines) > 12:
        title += f" ({len(lines)} {a.series} series)"
    ax.set_title(title)
    fig.tight_layout()
    try:
        fig.savefig(a.out)
    except OSError as e:
        print(f"netasic: error: plot: cannot write {a.out}: {e.strerror}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
