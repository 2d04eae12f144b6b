"""Size sweep: hashed Flowcut table and flowlet table 256 .. 65,536 entries, fully associative Flowcut
table measured at small sizes and extrapolated with a least-squares line (gates = a + b * entries; the
CAM is a per-entry register, comparator and mux slice, so its cost is linear in entries). Writes
docs/img/synthesis_sweep.png, and the markdown table (pasted into docs/synthesis.md) and the raw results
as JSON under build-rtl/sweep/. Pre-layout estimates. The full run takes about 5 minutes; the CAM
points dominate (Yosys time and memory grow faster than linearly with CAM entries).

  /usr/bin/python3 synth-scripts/sweep.py [--quick]
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
OUT = os.path.join(ROOT, "build-rtl", "sweep")


def run(block, params, extra=()):
    tag = block + "".join("_%s" % p.replace("=", "").replace('"', "") for p in params)
    out = os.path.join(OUT, tag)
    subprocess.run([sys.executable, os.path.join(HERE, "synth.py"), block, *params, "--out", out, *extra],
                   check=True)
    with open(os.path.join(out, "result.json")) as f:
        return json.load(f)


def main():
    quick = "--quick" in sys.argv
    sizes = [256, 1024, 4096, 16384, 65536] if not quick else [256, 1024]
    cam_sizes = [16, 32, 64, 128] if not quick else [16, 32]
    rows = []
    for n in sizes:
        r = run("flowlet_table", ["Entries=%d" % n])
        rows.append(("flowlet_table", n, r, "measured"))
    for n in sizes:
        r = run("flowcut_table", ["Impl=HASHED", "Entries=%d" % n, "Ways=4"])
        rows.append(("flowcut_table hashed 4-way", n, r, "measured"))
    cam = []
    for n in cam_sizes:
        r = run("flowcut_table", ["Impl=CAM", "Entries=%d" % n])
        rows.append(("flowcut_table CAM", n, r, "measured"))
        cam.append((n, r["nand2_equivalent"], r["flip_flops"]))
    # Least-squares line through the measured CAM points.
    k = len(cam)
    sx = sum(n for n, _, _ in cam)
    sy = sum(g for _, g, _ in cam)
    sxx = sum(n * n for n, _, _ in cam)
    sxy = sum(n * g for n, g, _ in cam)
    b = (k * sxy - sx * sy) / (k * sxx - sx * sx)
    a = (sy - b * sx) / k
    fb = sum(f for _, _, f in cam) / sx  # flops per entry (the constant part is small)
    fit = {"a": a, "b": b, "flops_per_entry": fb}
    for n in [s for s in sizes if s > cam_sizes[-1]]:
        rows.append(("flowcut_table CAM", n, {"nand2_equivalent": a + b * n, "flip_flops": round(fb * n),
                                              "memory_bits": 0}, "extrapolated"))
    os.makedirs(os.path.join(ROOT, "docs", "img"), exist_ok=True)
    with open(os.path.join(OUT, "sweep.json"), "w") as f:
        json.dump({"rows": [(name, n, r, how) for name, n, r, how in rows], "cam_fit": fit}, f, indent=1)
    lines = ["| block | entries | NAND2-eq gates | flip-flops | memory bits | how |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for name, n, r, how in rows:
        lines.append("| %s | %d | %s | %s | %s | %s |" % (name, n, format(round(r["nand2_equivalent"]), ","),
                                                    format(r["flip_flops"], ","), format(r["memory_bits"], ","), how))
    lines.append("")
    lines.append("CAM fit (least squares over %s entries): gates = %.0f + %.1f x entries; flip-flops = %.1f x "
                 "entries." % ("/".join(str(n) for n in cam_sizes), a, b, fb))
    with open(os.path.join(OUT, "synthesis_table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for name, style in (("flowlet_table", "o-"), ("flowcut_table hashed 4-way", "s-"), ("flowcut_table CAM", "^-")):
        pts = [(n, r["nand2_equivalent"], r["memory_bits"], how) for nm, n, r, how in rows if nm == name]
        meas = [p for p in pts if p[3] == "measured"]
        ext = [p for p in pts if p[3] == "extrapolated"]
        line, = ax1.plot([p[0] for p in meas], [p[1] for p in meas], style, label=name)
        if ext:
            ax1.plot([meas[-1][0]] + [p[0] for p in ext], [meas[-1][1]] + [p[1] for p in ext], "--",
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
    fig.savefig(os.path.join(ROOT, "docs", "img", "synthesis_sweep.png"), dpi=110)


if __name__ == "__main__":
    main()
