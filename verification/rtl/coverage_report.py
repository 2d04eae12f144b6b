#!/usr/bin/env python3
"""Functional coverage of the RTL blocks: runs the RTL-vs-model tests (CTest label rtl, the zero- and the
random-initialisation runs) with NETASIC_COVERAGE_DIR set, so every test writes the hit counts of its
block's `cover property` points (Verilator --coverage-user, rtl/*.sv), then sums them per block and point
and prints the table (Markdown with --markdown). Points never hit are listed as such; --require-all makes
them an error.

    verification/rtl/coverage_report.py --build-dir build-rtl [--markdown] [--require-all]
    verification/rtl/coverage_report.py --dat-dir DIR   # only summarise .dat files already written

The merged counts are also written to <dir>/merged.dat (verilator_coverage's format, so
`verilator_coverage --annotate OUT <dir>/merged.dat` gives the annotated sources).
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys


def parse_dat(path):
    """Yields (fields, count) for each point of a Verilator coverage .dat file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("C '"):
                continue
            key, _, count = line.rstrip("\n").rpartition("' ")
            fields = {}
            for item in key[3:].split("\x01"):
                if "\x02" in item:
                    k, v = item.split("\x02", 1)
                    fields[k] = v
            yield fields, int(count)


def collect(dat_dir):
    """{(block, point): [hits, runs that hit it, runs that had it, line]} over every .dat in dat_dir."""
    points = collections.OrderedDict()
    files = sorted(glob.glob(os.path.join(dat_dir, "*.dat")))
    files = [f for f in files if os.path.basename(f) != "merged.dat"]
    for path in files:
        seen = {}
        for fields, count in parse_dat(path):
            if not fields.get("page", "").startswith("v_user/"):
                continue
            block = re.sub(r"__pi\d+$", "", fields["page"][len("v_user/"):])  # parameterised copies
            key = (block, fields.get("o", "?"))
            seen[key] = seen.get(key, 0) + count
            if key not in points:
                points[key] = [0, 0, 0, int(fields.get("l", 0))]
        for key, count in seen.items():
            p = points[key]
            p[0] += count
            p[1] += 1 if count else 0
            p[2] += 1
    return points, files


def write_merged(files, out):
    """verilator_coverage --write merges the runs (it sums counts of identical points)."""
    tool = shutil.which("verilator_coverage")
    if tool and files:
        subprocess.run([tool, "--write", out] + files, check=False, stdout=subprocess.DEVNULL)


def report(points, markdown):
    blocks = collections.OrderedDict()
    for (block, point), value in sorted(points.items(), key=lambda kv: (kv[0][0], kv[1][3])):
        blocks.setdefault(block, []).append((point, value))
    lines = []
    if markdown:
        lines.append("| block | cover point | hits | runs hitting it |")
        lines.append("| --- | --- | ---: | ---: |")
    for block, rows in blocks.items():
        hit = sum(1 for _, v in rows if v[0])
        if not markdown:
            lines.append("%s: %d/%d points hit" % (block, hit, len(rows)))
        for point, (hits, runs_hit, runs, _) in rows:
            mark = "" if hits else "  NOT HIT"
            if markdown:
                lines.append("| `%s` | `%s` | %s | %d/%d |" % (block, point, hits if hits else "**0**", runs_hit, runs))
            else:
                lines.append("  %-28s %12d   %3d/%-3d runs%s" % (point, hits, runs_hit, runs, mark))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", default="build-rtl")
    ap.add_argument("--dat-dir", help="summarise the .dat files in this directory, run nothing")
    ap.add_argument("--tests", default="Rtl", help="CTest -R regex of the tests to run (default: Rtl)")
    ap.add_argument("-j", default="1", help="ctest -j")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--require-all", action="store_true", help="exit 1 if a cover point is never hit")
    a = ap.parse_args(argv)
    dat_dir = a.dat_dir
    if not dat_dir:
        dat_dir = os.path.abspath(os.path.join(a.build_dir, "rtl-coverage"))
        shutil.rmtree(dat_dir, ignore_errors=True)
        os.makedirs(dat_dir)
        env = dict(os.environ, NETASIC_COVERAGE_DIR=dat_dir)
        cmd = ["ctest", "--test-dir", a.build_dir, "-L", "rtl", "-R", a.tests, "-j", a.j]
        print("running: NETASIC_COVERAGE_DIR=%s %s" % (dat_dir, " ".join(cmd)), file=sys.stderr)
        r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL)
        if r.returncode != 0:
            sys.exit("coverage_report: the tests failed (rerun ctest to see which)")
    points, files = collect(dat_dir)
    if not files:
        sys.exit("coverage_report: no .dat files in %s (models built without --coverage-user?)" % dat_dir)
    write_merged(files, os.path.join(dat_dir, "merged.dat"))
    print("%d runs, %d cover points" % (len(files), len(points)))
    print(report(points, a.markdown))
    missed = [k for k, v in points.items() if not v[0]]
    if missed and a.require_all:
        sys.exit("coverage_report: %d points never hit" % len(missed))


if __name__ == "__main__":
    main(sys.argv[1:])
