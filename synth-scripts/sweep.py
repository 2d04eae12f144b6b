"""Size sweep: hashed Flowcut table and flowlet table 256 .. 65,536 entries; fully associative Flowcut
table (CAM) 16 .. 2,048 entries measured, extrapolated beyond with a least-squares fit a + b n +
c n log2 n (the CAM is a per-entry register, comparator and mux slice, plus index decoders and priority
encoders log2 n bits wide per entry; see cam_fit). Writes
docs/img/synthesis_sweep.png, docs/synthesis_sweep.json (every point's result, the CAM calibration and
fit) and the markdown tables (build-rtl/sweep/synthesis_table.md, pasted into docs/synthesis.md).
Pre-layout estimates.

The CAM runs through two flows (synth.py --flow, see docs/synthesis.md):
  - abc (the full flow, techmap + ABC) up to --cam-abc-max entries (default 128). The 256-entry point
    takes Yosys 15 minutes of CPU (its run time grows faster than the design), so by default its recorded result
    (RECORDED_CAM_ABC below, also in docs/synthesis.md) is used instead; --cam-abc-max 256 re-measures it;
  - techmap (no ABC, about 15 times cheaper at 256 entries) at every CAM size up to --cam-max (default
    2,048: with the current coding Yosys' `proc` on the entry arrays takes 1,082 s of CPU at 2,048
    entries, and 4,096 had not left it after 10 minutes). Its NAND2 equivalents are larger than the ABC
    flow's (no logic minimisation); they are
    calibrated with factor = ABC / techmap NAND2 equivalents at the largest size both flows ran, and the
    points above --cam-abc-max are reported as "measured (techmap flow, calibrated)". Flip-flops are
    exact in both flows (they must match wherever both ran; the sweep fails otherwise).
The full run takes about 35 minutes of Yosys CPU time (most of it the 1,024- and 2,048-entry techmap
points; +15 minutes with --cam-abc-max 256) and about 5.6 GB of memory at 2,048 entries.

  /usr/bin/python3 synth-scripts/sweep.py [--quick] [--reuse] [--cam-abc-max N] [--cam-max N]

--reuse takes a point's existing build-rtl/sweep/<point>/result.json (same block, parameters and flow)
instead of running Yosys again; use it only when neither the RTL nor synth.py changed since.
"""
import argparse
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
OUT = os.path.join(ROOT, "build-rtl", "sweep")

CAM = "flowcut_table CAM"
HOW_ABC = "measured"
HOW_TECHMAP = "measured (techmap flow, calibrated)"
HOW_EXTRA = "extrapolated"

# ABC-flow CAM results recorded from an earlier run and not re-run by default (see the docstring):
# `synth-scripts/synth.py flowcut_table Impl=CAM Entries=256`, 883 s of CPU, 749 MB of Yosys memory. Re-record
# it (or run --cam-abc-max 256) whenever rtl/flowcut_table_cam.sv changes: the calibration rests on it.
RECORDED_CAM_ABC = {
    256: {"nand2_equivalent": 582511.0, "flip_flops": 49979, "memory_bits": 0, "yosys_seconds": 1878,
          "yosys_cpu_seconds": 883.5, "yosys_peak_rss_mb": 749,
          "recorded": "earlier run (the current CAM coding), not re-run by this sweep"},
}


def run(block, params, flow="abc", reuse=False):
    tag = block + "".join("_%s" % p.replace("=", "").replace('"', "") for p in params)
    if flow != "abc":
        tag += "_" + flow
    out = os.path.join(OUT, tag)
    res = os.path.join(out, "result.json")
    if reuse and os.path.exists(res):
        with open(res) as f:
            r = json.load(f)
        if r.get("flow", "abc") == flow and r["params"] == dict(p.split("=", 1) for p in params):
            print("%s: reused %s" % (tag, os.path.relpath(res, ROOT)))
            return r
    subprocess.run([sys.executable, os.path.join(HERE, "synth.py"), block, *params, "--out", out,
                    "--flow", flow], check=True)
    with open(res) as f:
        return json.load(f)


def cam_fit(points):
    """Least squares gates = a + b n + c n log2(n) through (n, gates) points: each entry is a fixed slice
    (194 flip-flops, a 104-bit comparator, its read-mux column) plus logic that grows with the index width
    log2(n) (its write-enable and read-select decoders, its share of the two priority encoders)."""
    import numpy as np
    n = np.array([p[0] for p in points], dtype=float)
    y = np.array([p[1] for p in points], dtype=float)
    m = np.vstack([np.ones_like(n), n, n * np.log2(n)]).T
    (a, b, c), *_ = np.linalg.lstsq(m, y, rcond=None)
    return float(a), float(b), float(c)


def lsq(points):
    """Least-squares line y = a + b x through (x, y) points."""
    k = len(points)
    sx = sum(x for x, _ in points)
    sy = sum(y for _, y in points)
    sxx = sum(x * x for x, _ in points)
    sxy = sum(x * y for x, y in points)
    b = (k * sxy - sx * sy) / (k * sxx - sx * sx)
    return (sy - b * sx) / k, b


def fmt(v):
    return format(int(round(v)), ",")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="a few small points only (a few minutes); writes under build-rtl/sweep/ only")
    ap.add_argument("--reuse", action="store_true", help="reuse existing per-point results (see above)")
    ap.add_argument("--cam-abc-max", type=int, help="largest CAM size through the ABC flow (default 128)")
    ap.add_argument("--cam-max", type=int, help="largest CAM size measured, techmap flow (default 2048)")
    a = ap.parse_args()
    sizes = [256, 1024, 4096, 16384, 65536] if not a.quick else [256, 1024]
    cam_abc_max = a.cam_abc_max or (128 if not a.quick else 32)
    cam_max = a.cam_max or (2048 if not a.quick else 64)
    if cam_abc_max > cam_max:
        sys.exit("sweep: --cam-abc-max (%d) above --cam-max (%d)" % (cam_abc_max, cam_max))
    cam_sizes = [n for n in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536) if n <= cam_max]
    rows = []
    for n in sizes:
        r = run("flowlet_table", ["Entries=%d" % n], reuse=a.reuse)
        rows.append(("flowlet_table", n, r, "measured"))
    for n in sizes:
        r = run("flowcut_table", ["Impl=HASHED", "Entries=%d" % n, "Ways=4"], reuse=a.reuse)
        rows.append(("flowcut_table hashed 4-way", n, r, "measured"))

    # CAM: ABC flow up to cam_abc_max, techmap flow at every size; calibration at the largest common size.
    abc, tm = {}, {}
    for n in cam_sizes:
        if n <= cam_abc_max:
            abc[n] = run("flowcut_table", ["Impl=CAM", "Entries=%d" % n], reuse=a.reuse)
        elif n in RECORDED_CAM_ABC and not a.quick:
            abc[n] = RECORDED_CAM_ABC[n]
    for n in cam_sizes:
        tm[n] = run("flowcut_table", ["Impl=CAM", "Entries=%d" % n], flow="techmap", reuse=a.reuse)
    common = sorted(set(abc) & set(tm))
    for n in common:
        if abc[n]["flip_flops"] != tm[n]["flip_flops"]:
            sys.exit("sweep: CAM %d entries: %d flip-flops with ABC, %d with techmap (they must match)"
                     % (n, abc[n]["flip_flops"], tm[n]["flip_flops"]))
    cal_n = common[-1]
    factor = abc[cal_n]["nand2_equivalent"] / tm[cal_n]["nand2_equivalent"]
    calibration = {
        "at_entries": cal_n,
        "factor_abc_over_techmap": factor,
        "by_entries": {str(n): {"abc": abc[n]["nand2_equivalent"], "techmap": tm[n]["nand2_equivalent"],
                                "techmap_over_abc": tm[n]["nand2_equivalent"] / abc[n]["nand2_equivalent"],
                                "abc_logic": abc[n].get("nand2_equivalent_logic"),
                                "techmap_logic": tm[n]["nand2_equivalent_logic"],
                                "flip_flops": abc[n]["flip_flops"],
                                "abc_recorded": "recorded" in abc[n]} for n in common},
    }
    for n in cam_sizes:
        if n in abc:
            rows.append((CAM, n, abc[n], HOW_ABC + (" (recorded run)" if "recorded" in abc[n] else "")))
        else:
            r = dict(tm[n])
            r["nand2_equivalent_techmap"] = r["nand2_equivalent"]
            r["nand2_equivalent"] = r["nand2_equivalent"] * factor
            r["calibration_factor"] = factor
            rows.append((CAM, n, r, HOW_TECHMAP))
    # Fits through the CAM rows from the calibration size up (ABC there, calibrated above): gates
    # a + b n + c n log2 n, flip-flops a line.
    fit_rows = [(n, r) for nm, n, r, how in rows if nm == CAM and n >= cal_n]
    if len(fit_rows) < 3:
        fit_rows = [(n, r) for nm, n, r, how in rows if nm == CAM]
    ga, gb, gc = cam_fit([(n, r["nand2_equivalent"]) for n, r in fit_rows])
    fa, fb = lsq([(n, r["flip_flops"]) for n, r in fit_rows])

    def gates(n):
        return ga + gb * n + gc * n * math.log2(n)

    fit = {"gates": "a + b * entries + c * entries * log2(entries)", "gates_a": ga, "gates_b": gb,
           "gates_c": gc, "flops": "a + b * entries", "flops_a": fa, "flops_b": fb,
           "over_entries": [n for n, _ in fit_rows],
           "max_relative_error": max(abs(gates(n) - r["nand2_equivalent"]) / r["nand2_equivalent"]
                                     for n, r in fit_rows)}
    for n in [s for s in sizes if s > cam_max]:
        rows.append((CAM, n, {"nand2_equivalent": gates(n), "flip_flops": round(fa + fb * n),
                              "memory_bits": 0}, HOW_EXTRA))

    os.makedirs(os.path.join(ROOT, "docs", "img"), exist_ok=True)
    json_doc = os.path.join(ROOT, "docs", "synthesis_sweep.json")
    png = os.path.join(OUT if a.quick else os.path.join(ROOT, "docs", "img"), "synthesis_sweep.png")
    report = {"rows": [(name, n, r, how) for name, n, r, how in rows], "cam_calibration": calibration,
              "cam_fit": fit}
    # The raw results: build-rtl/sweep/sweep.json, and the committed copy docs/synthesis_sweep.json
    # (not for --quick, whose plot also stays under build-rtl/sweep/).
    for path in [os.path.join(OUT, "sweep.json")] + ([] if a.quick else [json_doc]):
        with open(path, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
    lines = ["| block | entries | NAND2-eq gates | flip-flops | memory bits | how |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for name, n, r, how in rows:
        lines.append("| %s | %d | %s | %s | %s | %s |" % (name, n, fmt(r["nand2_equivalent"]),
                                                    fmt(r["flip_flops"]), fmt(r["memory_bits"]), how))
    lines.append("")
    lines.append("CAM fit (least squares over %s entries): gates = %s + %.1f x entries + %.2f x entries x "
                 "log2(entries) (largest deviation %.4f%%); flip-flops = %s + %.2f x entries."
                 % ("/".join(str(n) for n in fit["over_entries"]), fmt(ga), gb, gc,
                    100 * fit["max_relative_error"], fmt(fa), fb))
    lines.append("")
    lines.append("CAM, both flows (techmap/ABC: ratio of NAND2 equivalents; calibration factor %.4f = ABC / "
                 "techmap at %d entries):" % (factor, cal_n))
    lines.append("")
    lines.append("| entries | flow | cells | flip-flops | NAND2-eq (as synthesized) | NAND2-eq (calibrated) "
                 "| techmap/ABC | Yosys CPU s | peak MB |")
    lines.append("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in cam_sizes:
        for flow, r in (("ABC", abc.get(n)), ("techmap", tm.get(n))):
            if r is None:
                continue
            cal = "" if flow == "ABC" else fmt(r["nand2_equivalent"] * factor)
            ratio = "%.4f" % (tm[n]["nand2_equivalent"] / abc[n]["nand2_equivalent"]) if (
                flow == "techmap" and n in abc) else ""
            cpu = r.get("yosys_cpu_seconds", r.get("yosys_seconds") if "recorded" in r else None)
            mem = r.get("yosys_peak_rss_mb")
            lines.append("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                n, flow + (" (recorded)" if "recorded" in r else ""),
                fmt(r["cells"]) if "cells" in r else "n/a", fmt(r["flip_flops"]), fmt(r["nand2_equivalent"]), cal, ratio,
                ("%.0f" % cpu + (" (wall)" if "recorded" in r else "")) if cpu is not None else "n/a", fmt(mem) if mem is not None else "n/a"))
    with open(os.path.join(OUT, "synthesis_table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, style in (("flowlet_table", "o-"), ("flowcut_table hashed 4-way", "s-"), (CAM, "^-")):
        pts = [(n, r["nand2_equivalent"], r["memory_bits"], how) for nm, n, r, how in rows if nm == name]
        meas = [p for p in pts if p[3].startswith(HOW_ABC) and p[3] != HOW_TECHMAP]
        cal = [p for p in pts if p[3] == HOW_TECHMAP]
        ext = [p for p in pts if p[3] == HOW_EXTRA]
        line, = ax1.plot([p[0] for p in meas], [p[1] for p in meas], style, label=name)
        last = meas[-1]
        if cal:
            ax1.plot([last[0]] + [p[0] for p in cal], [last[1]] + [p[1] for p in cal], "v-", mfc="none",
                     color=line.get_color(), label=name + " (techmap flow, calibrated)")
            last = cal[-1]
        if ext:
            ax1.plot([last[0]] + [p[0] for p in ext], [last[1]] + [p[1] for p in ext], "--",
                     color=line.get_color(), label=name + " (extrapolated)")
        if any(p[2] for p in pts):
            ax2.plot([p[0] for p in pts], [p[2] / 1e6 for p in pts], style, label=name)
    ax1.plot([65536], [150e3], "k*", markersize=12, label="LetFlow paper, 64K flowlet table")
    ax2.plot([65536], [3.0], "k*", markersize=12, label="LetFlow paper, 64K flowlet table")
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("entries")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    ax1.set_yscale("log")
    ax1.set_ylabel("NAND2-equivalent gates (logic + flip-flops)")
    ax2.set_yscale("log")
    ax2.set_ylabel("memory (Mbit)")
    fig.suptitle("Yosys 0.23 pre-layout estimates (generic gates, memories unmapped)")
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
