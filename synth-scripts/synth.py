"""Scripted Yosys flow for one netasic RTL block at one parameter point.

Writes into the output directory:
  flow.ys          the Yosys script that ran
  yosys.log        the full log
  stat_rtl.txt     `stat` after proc (memories still RTLIL memories: memory bits visible here)
  stat_gates.txt   `stat` after techmap + abc to a generic gate library (memories left unmapped)
  result.json      cells by type, flip-flops, memory bits, NAND2-equivalent gate estimate, Yosys wall
                   and CPU time and peak memory (Yosys and ABC); with --timing also logic_depth (Yosys
                   `ltp -noff`), its path, est_clock_ps and est_fmax_mhz (GATE_DELAY_PS below)
  ltp.txt          (--timing) the longest path between flip-flops, RAM ports and block ports
and prints a short summary. These are pre-layout estimates: no technology library, no placement, no
wires; memories are counted in bits, not gates (a RAM compiler macro would implement them).

Two flows (--flow):
  abc      (default) techmap, then ABC maps the logic to AND/NAND/OR/NOR/XOR/XNOR/ANDNOT/ORNOT/MUX.
  techmap  no ABC: the netlist techmap makes of Yosys' internal gates ($_AND_, $_OR_, $_XOR_, $_MUX_,
           $_NOT_ and flip-flops), constant-folded and cleaned. Far cheaper on large designs (the large
           fully associative Flowcut tables), with the same flip-flops; its NAND2 equivalents are higher
           (no logic minimisation) and are calibrated against the abc flow (docs/synthesis.md).

NAND2-equivalent area table (per Yosys generic cell; combinational cells from the transistor counts of
Yosys' own `stat -tech cmos` model divided by the 4 transistors of a NAND2; flip-flops from typical
standard-cell libraries, where a D flip-flop is about 4.5 NAND2 and a reset or an enable adds about one
gate each). Every cell is counted (no lower bound): an unknown cell type is an error. The same table
serves both flows: the techmap flow's gates are a subset of the abc flow's ($_NOT_ 0.5, $_AND_/$_OR_
1.5, $_XOR_/$_MUX_ 3).
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RTL = os.path.normpath(os.path.join(HERE, "..", "rtl"))

NAND2_EQ = {
    "$_NOT_": 0.5, "$_BUF_": 0.5,
    "$_NAND_": 1.0, "$_NOR_": 1.0,
    "$_AND_": 1.5, "$_OR_": 1.5, "$_ANDNOT_": 1.5, "$_ORNOT_": 1.5,
    "$_XOR_": 3.0, "$_XNOR_": 3.0, "$_MUX_": 3.0, "$_NMUX_": 2.5,
    "$_AOI3_": 1.5, "$_OAI3_": 1.5, "$_AOI4_": 2.0, "$_OAI4_": 2.0,
}
# Timing estimate (--timing): logic depth = Yosys `ltp -noff` on the mapped netlist, the longest path in
# cells between flip-flops, RAM ports, inputs and outputs; every generic cell counts as one level. One
# level is taken as one FO4 inverter delay of a 28 nm planar process, 14 ps by the rule of thumb
# FO4 ~ 0.5 ns x drawn gate length in um (which gives the 45 ps usually quoted for 90 nm); a flip-flop
# adds clock-to-q plus setup, taken as 3 FO4. No wires, no fanout-dependent delay, no clock skew.
GATE_DELAY_PS = 14.0
FLOP_OVERHEAD_PS = 42.0
FLOP_BASE = 4.5   # plain D flip-flop
FLOP_RESET = 1.0  # + asynchronous or synchronous reset/set
FLOP_ENABLE = 1.5  # + clock enable (a hold mux)

BLOCKS = {
    "flowcut_table": ("flowcut_table", ["flowcut_table.sv", "flowcut_table_cam.sv", "flowcut_table_hashed.sv",
                                         "flowcut_op_unit.sv", "crc32_key.sv"]),
    "flowcut_table_cam": ("flowcut_table_cam", ["flowcut_table_cam.sv", "flowcut_op_unit.sv"]),
    "flowcut_table_hashed": ("flowcut_table_hashed", ["flowcut_table_hashed.sv", "flowcut_op_unit.sv",
                                                       "crc32_key.sv"]),
    # The line-rate (pipelined) hashed Flowcut table, same ports as flowcut_table_hashed.
    "flowcut_table_hashed_lr": ("flowcut_table_hashed_lr", ["flowcut_table_hashed_lr.sv", "flowcut_op_unit.sv",
                                                             "crc32_key.sv"]),
    # flowlet_table and flowsail take their index from crc32_key.svh, not the crc32_key module; the module
    # stays in their read lists because the recorded figures (docs/synthesis.md, the sweep) were made so:
    # reading one module less moves ABC's mapping by 0.1% (flowlet table) and 0.8% (FlowSail).
    "flowlet_table": ("flowlet_table", ["flowlet_table.sv", "crc32_key.sv", "xoshiro256ss.sv"]),
    "flowlet_table_lr": ("flowlet_table_lr", ["flowlet_table_lr.sv", "crc32_key.sv", "xoshiro256ss_ahead.sv"]),
    "fgfc_generator": ("fgfc_generator", ["fgfc_generator.sv"]),
    "flowsail": ("flowsail", ["flowsail.sv", "crc32_key.sv", "xoshiro256ss.sv"]),
    "reorder_buffer": ("reorder_buffer", ["reorder_buffer.sv"]),
    "xoshiro256ss": ("xoshiro256ss", ["xoshiro256ss.sv"]),  # the random source alone (its share of a block)
}


def flop_area(cell):
    # $_DFF_P_, $_DFFE_PP_, $_DFF_PN0_, $_DFFE_PN0P_, $_SDFF_PP0_, $_SDFFE_PP0P_, $_SDFFCE_..., $_DFFSR_...
    m = re.match(r"^\$_(S?)(DFF|DFFSR|ALDFF)(C?E?)_([A-Z0-9]+)_$", cell)
    if not m:
        return None
    sync, kind, ce, pol = m.groups()
    area = FLOP_BASE
    if sync or kind in ("DFFSR", "ALDFF") or len(pol) >= 3:
        area += FLOP_RESET
    if "E" in ce:
        area += FLOP_ENABLE
    return area


def param_value(v):
    if re.fullmatch(r"-?\d+", v):
        return v
    # A string parameter (Impl="HASHED"): Yosys' -chparam wants a bit vector, 8 bits per character.
    s = v.strip('"')
    return "%d'h%s" % (8 * max(8, len(s)), s.encode().hex().rjust(2 * max(8, len(s)), "0"))


def parse_stat(text):
    """Cells by type, cell count and memory bits of the last `stat` block in text."""
    cells, mem_bits, total = {}, 0, 0
    for line in text.splitlines():
        m = re.match(r"\s+Number of memory bits:\s+(\d+)", line)
        if m:
            mem_bits = int(m.group(1))
        m = re.match(r"\s+Number of cells:\s+(\d+)", line)
        if m:
            total = int(m.group(1))
        m = re.match(r"\s+(\$\S+)\s+(\d+)\s*$", line)
        if m:
            cells[m.group(1)] = cells.get(m.group(1), 0) + int(m.group(2))
    return cells, mem_bits, total


def parse_ltp(text):
    """Length and end points of the path `ltp` printed last: (length, first node, last node)."""
    i = text.rfind("Longest topological path")
    if i < 0:
        return None
    block = text[i:]
    m = re.match(r"Longest topological path in \S+ \(length=(\d+)\):", block)
    nodes = re.findall(r"^\s+\d+: (\S+(?: \[\d+\])?)", block, re.M)
    ff = re.search(r"^\s+ff: (\S+(?: \[\d+\])?)", block, re.M)  # the flip-flop or RAM the path ends at
    return int(m.group(1)), (nodes[0] if nodes else ""), (ff.group(1) if ff else nodes[-1] if nodes else "")


def timing_estimate(depth):
    clock_ps = depth * GATE_DELAY_PS + FLOP_OVERHEAD_PS
    return {"logic_depth": depth, "est_clock_ps": round(clock_ps, 1), "est_fmax_mhz": round(1e6 / clock_ps, 1),
            "timing_model": {"gate_delay_ps": GATE_DELAY_PS, "flop_overhead_ps": FLOP_OVERHEAD_PS,
                             "basis": "1 level = 1 FO4 of a 28 nm planar process (14 ps); flip-flop "
                                      "clock-to-q + setup 3 FO4; RAM ports count as flip-flops (access "
                                      "time not included); no wires"}}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("block", choices=sorted(BLOCKS))
    ap.add_argument("params", nargs="*", help="K=V parameter overrides")
    ap.add_argument("--out", help="output directory (default build-rtl/synth/<block>_<params>)")
    ap.add_argument("--check-memory-bits", type=int, help="fail unless stat reports exactly this many")
    ap.add_argument("--check-flip-flops", type=int, help="fail unless the netlist has exactly this many")
    ap.add_argument("--timing", action="store_true",
                    help="logic depth (Yosys ltp -noff on the mapped netlist) and an estimated clock frequency "
                         "(docs/synthesis.md, 'Timing estimate')")
    ap.add_argument("--blackbox", action="append", default=[], metavar="MODULE",
                    help="keep this submodule as an empty black box (its share of a block: the block's figures "
                         "without it)")
    ap.add_argument("--abc-fast", action="store_true", help="abc -fast (large CAM points)")
    ap.add_argument("--flow", choices=("abc", "techmap"), default="abc",
                    help="abc (default): techmap then ABC to the generic gate set; techmap: stop after techmap "
                         "to Yosys' internal gates and opt, no ABC (much faster on large CAMs; its NAND2 "
                         "equivalents are larger and are calibrated against the ABC flow, see "
                         "docs/synthesis.md)")
    a = ap.parse_args(argv)
    top, files = BLOCKS[a.block]
    missing = [f for f in files if not os.path.exists(os.path.join(RTL, f))]
    if missing:
        sys.exit("synth: block %s has no RTL yet (%s)" % (a.block, ", ".join(missing)))
    params = []
    for p in a.params:
        if "=" not in p:
            sys.exit("synth: parameter %r is not K=V" % p)
        k, v = p.split("=", 1)
        params.append((k, v))
    tag = a.block + "".join("_%s%s" % (k, v.strip('"')) for k, v in params) + "".join("_no_" + m for m in a.blackbox)
    out = a.out or os.path.join(HERE, "..", "build-rtl", "synth", tag)
    os.makedirs(out, exist_ok=True)
    chparam = " ".join("-chparam %s %s" % (k, param_value(v)) for k, v in params)
    script = "\n".join([
        "read_verilog -sv -I%s %s" % (RTL, " ".join(os.path.join(RTL, f) for f in files)),
        "hierarchy -check -top %s %s" % (top, chparam),
    ] + ["blackbox *%s*" % m for m in a.blackbox] + [
        "flatten",
        "proc",
        "opt -fast",
        "tee -o %s stat" % os.path.join(out, "stat_rtl.txt"),
        "memory -nomap",
        # opt -full's fine-grained opt_reduce is quadratic on the large CAM's mux chains in Yosys 0.23
        # (one link per rescan); the techmap flow uses plain opt.
        "opt -full" if a.flow == "abc" else "opt",
        "wreduce",
        "alumacc",
        "opt -fast",
        "techmap",
    ] + ([
        "opt -fast",
        "abc %s -g AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX" % ("-fast" if a.abc_fast else ""),
        "opt_clean",
    ] if a.flow == "abc" else [
        # No ABC: the techmapped netlist ($_AND_/$_OR_/$_XOR_/$_MUX_/$_NOT_/flip-flops), constant-folded
        # and cleaned. No opt_merge at this level: in Yosys 0.23 it rescans the whole netlist once per
        # link of the CAM's priority-encoder chains (has_free and the top free_idx bit become identical
        # chains), which is quadratic in entries; the few duplicates it would remove are in the
        # calibration ratio (docs/synthesis.md).
        "opt_expr",
        "opt_dff",
        "opt_clean",
        "opt_expr",
        "opt_clean",
    ]) + [
        "tee -o %s stat" % os.path.join(out, "stat_gates.txt"),
    # A black box is no path: without timing it would count as one level from every input to every
    # output (false paths such as next_i -> below_o); its outputs start paths as a register's would.
    ] + (["tee -o %s ltp -noff%s" % (os.path.join(out, "ltp.txt"), "".join(
        " * t:*%s* %%d" % m for m in a.blackbox) if a.blackbox else "")] if a.timing else [])) + "\n"
    with open(os.path.join(out, "flow.ys"), "w") as f:
        f.write(script)
    t0 = time.time()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(["yosys", "-q", "-d", "-l", os.path.join(out, "yosys.log"), "-s", os.path.join(out, "flow.ys")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-4000:])
        sys.exit("synth: yosys failed, see %s/yosys.log" % out)
    seconds = time.time() - t0
    # CPU time and peak resident memory of Yosys and its children (ABC), as /usr/bin/time would report.
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_seconds = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    peak_mb = ru1.ru_maxrss / 1024.0
    with open(os.path.join(out, "stat_rtl.txt")) as f:
        _, mem_bits, _ = parse_stat(f.read())
    with open(os.path.join(out, "stat_gates.txt")) as f:
        cells, _, total = parse_stat(f.read())
    flops, comb, flop_nand2, comb_nand2, memories = 0, 0, 0.0, 0.0, 0
    for cell, n in cells.items():
        if cell in NAND2_EQ:
            comb += n
            comb_nand2 += n * NAND2_EQ[cell]
        elif flop_area(cell) is not None:
            flops += n
            flop_nand2 += n * flop_area(cell)
        elif cell.startswith("$mem"):
            memories += n
        elif any(m in cell for m in a.blackbox):
            pass  # a black-boxed submodule (--blackbox): not counted
        else:
            sys.exit("synth: no NAND2-equivalent for cell type %s (add it to the table)" % cell)
    result = {
        "block": a.block,
        "top": top,
        "params": dict(params),
        "black_boxes": a.blackbox,
        "flow": a.flow,
        "pre_layout_estimate": True,
        "cells_by_type": dict(sorted(cells.items())),
        "cells": total,
        "flip_flops": flops,
        "combinational_cells": comb,
        "memory_bits": mem_bits,
        "memories": memories,
        "nand2_equivalent": round(comb_nand2 + flop_nand2, 1),
        "nand2_equivalent_logic": round(comb_nand2, 1),
        "nand2_equivalent_flops": round(flop_nand2, 1),
        "yosys_seconds": round(seconds, 1),
        "yosys_cpu_seconds": round(cpu_seconds, 1),
        "yosys_peak_rss_mb": round(peak_mb),
        "nand2_table": {"combinational": NAND2_EQ, "flop_base": FLOP_BASE, "flop_reset": FLOP_RESET,
                        "flop_enable": FLOP_ENABLE},
    }
    if a.timing:
        with open(os.path.join(out, "ltp.txt")) as f:
            ltp = parse_ltp(f.read())
        if ltp is None:
            sys.exit("synth: no ltp result in %s/ltp.txt" % out)
        result.update(timing_estimate(ltp[0]))
        result["logic_path"] = {"from": ltp[1], "to": ltp[2]}
    with open(os.path.join(out, "result.json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print("%s %s (%s flow): nand2_equivalent %.0f (logic %.0f, %d flip-flops %.0f), memory_bits %d, cells %d, "
          "%.1f s (%.1f s CPU, %.0f MB peak)"
          % (a.block, " ".join("%s=%s" % kv for kv in params) or "(defaults)", a.flow, result["nand2_equivalent"],
             comb_nand2, flops, flop_nand2, mem_bits, total, seconds, cpu_seconds, peak_mb))
    if a.timing:
        print("  logic depth %d (%s -> %s): about %.0f ps, %.0f MHz (%.0f ps per level + %.0f ps flip-flop)"
              % (result["logic_depth"], result["logic_path"]["from"], result["logic_path"]["to"],
                 result["est_clock_ps"], result["est_fmax_mhz"], GATE_DELAY_PS, FLOP_OVERHEAD_PS))
    print("  pre-layout estimate; reports in %s" % os.path.normpath(out))
    if a.check_memory_bits is not None and mem_bits != a.check_memory_bits:
        sys.exit("synth: memory_bits %d != expected %d" % (mem_bits, a.check_memory_bits))
    if a.check_flip_flops is not None and flops != a.check_flip_flops:
        sys.exit("synth: flip_flops %d != expected %d" % (flops, a.check_flip_flops))
    if result["nand2_equivalent"] <= 0:
        sys.exit("synth: empty netlist")


if __name__ == "__main__":
    main(sys.argv[1:])
