"""Run one Yosys formal proof of an RTL block (verification/formal/, docs/formal.md).

    /usr/bin/python3 verification/formal/run_proof.py WRAPPER RTL_FILE... [-p K=V]... [--bmc N | --maxsteps N]
        [--mutate FILE OLD NEW --expect-fail] [--ports-only] [--define NAME] [--show SIGNAL] [--out DIR]

WRAPPER is verification/formal/<top>.sv (module <top>), or the name of an RTL block to prove its own
`ifdef FORMAL` assertions with every input free; RTL_FILE are rtl/*.sv names. The flow:
read_verilog -formal -sv (defines FORMAL: the blocks' internal invariants join the wrapper's port
properties) -> chparam -> prep -flatten -> memory_map (RAMs become registers) -> async2sync (the
asynchronous reset becomes a synchronous one the SAT model can unroll; its effect stays immediate) ->
dffunmap -> sat -prove-asserts -set-init-zero with
  --maxsteps N (default 12): temporal induction (k-induction, k = 1 .. N); passes on
               "Induction step proven: SUCCESS!" (an unbounded proof: every assertion holds in every
               reachable state from reset);
  --bmc N:     bounded model check to depth N; passes on "no model found: SUCCESS!".
The environment is the wrapper's free inputs (and its assumptions, if any), reset included.

--mutate FILE OLD NEW seeds a bug (OLD must occur exactly once in rtl/FILE; the copy with NEW is read
instead) and --expect-fail inverts the verdict: the proof must fail with a counterexample from reset,
written as a VCD into the output directory. Exit status 0 when the verdict is the expected one.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RTL = os.path.normpath(os.path.join(HERE, "..", "..", "rtl"))


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wrapper", help="top: a formal wrapper (verification/formal/<wrapper>.sv) or an RTL block")
    ap.add_argument("rtl", nargs="+", help="rtl/*.sv files the wrapper instantiates")
    ap.add_argument("-p", "--param", action="append", default=[], help="K=V parameter of the wrapper")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--maxsteps", type=int, default=12, help="largest induction length (default 12)")
    mode.add_argument("--bmc", type=int, help="bounded model check to this depth instead of induction")
    ap.add_argument("--mutate", nargs=3, metavar=("FILE", "OLD", "NEW"), help="seed a bug in rtl/FILE")
    ap.add_argument("--expect-fail", action="store_true", help="pass only if the proof fails (seeded bug)")
    ap.add_argument("--ports-only", action="store_true",
                    help="read the RTL without FORMAL: only the wrapper's port properties are checked")
    ap.add_argument("--define", action="append", default=[], metavar="NAME",
                    help="define NAME when reading the wrapper (properties it keeps for bounded runs)")
    ap.add_argument("--show", action="append", default=[], help="signal to print from a counterexample")
    ap.add_argument("--out", help="output directory (default build-rtl/formal/<wrapper>_<params>)")
    return ap.parse_args(argv)


def rtl_files(a, out):
    """The RTL files to read: rtl/<name>, with the --mutate one replaced by its mutant copy in out."""
    files = [os.path.join(RTL, f) for f in a.rtl]
    if not a.mutate:
        return files
    name, old, new = a.mutate
    path = os.path.join(RTL, name)
    with open(path) as f:
        text = f.read()
    if text.count(old) != 1:
        sys.exit("run_proof: %r occurs %d times in %s (must be once)" % (old, text.count(old), path))
    mutant = os.path.join(out, name)
    with open(mutant, "w") as f:
        f.write(text.replace(old, new))
    print("seeded bug in %s: %r -> %r" % (name, old, new))
    return [mutant if f == path else f for f in files]


def proof_script(a, files, vcd):
    chparam = "".join(" -set %s %s" % tuple(p.split("=", 1)) for p in a.param)
    how = ("-seq %d" % a.bmc) if a.bmc else ("-tempinduct -maxsteps %d" % a.maxsteps)
    wrapper = os.path.join(HERE, a.wrapper + ".sv")
    reads = ["read_verilog %s-sv -I%s %s" % ("" if a.ports_only else "-formal ", RTL, " ".join(files))]
    if os.path.exists(wrapper):
        reads.append("read_verilog -formal -sv %s-I%s %s" % ("".join("-D%s " % d for d in a.define), RTL, wrapper))
    elif a.ports_only:
        sys.exit("run_proof: --ports-only needs a wrapper (verification/formal/%s.sv)" % a.wrapper)
    return "\n".join(reads + [
        "chparam%s %s" % (chparam, a.wrapper) if chparam else "",
        "prep -flatten -top %s" % a.wrapper,
        "memory_map",
        "opt -fast",
        "async2sync",
        "dffunmap",
        # The first cycle is a reset; registers without one start at any value.
        "sat %s -prove-asserts -set-at 1 rst_ni 0 -dump_vcd %s %s %s" % (
            how, vcd, " ".join("-show " + x for x in a.show), a.wrapper),
    ]) + "\n"


def verdict(a, text, vcd):
    """(proven, failed, one-line verdict) from Yosys' log."""
    lengths = re.findall(r"Trying induction with length (\d+)", text)
    if a.bmc:
        proven = "SAT proof finished - no model found: SUCCESS!" in text
        failed = "SAT proof finished - model found: FAIL!" in text
        depth = "depth %d" % a.bmc
        cex = "within %d cycles" % a.bmc
    else:
        proven = "Induction step proven: SUCCESS!" in text
        failed = "model found for base case: FAIL!" in text
        depth = "induction length %s" % (lengths[-1] if lengths else "?")
        cex = "of %s cycles" % (lengths[-1] if lengths else "?")
    if proven and not failed:
        return True, False, "PROVEN (%s, %s)" % ("bounded" if a.bmc else "unbounded", depth)
    if failed:
        return False, True, "FAILED: counterexample %s from reset (%s)" % (cex, os.path.normpath(vcd))
    return False, False, "UNDECIDED: no counterexample up to %s, but the induction did not close" % depth


def print_trace(text):
    """The counterexample's table (Yosys prints it after the failing case), one line per cycle."""
    table = text[text.rindex("model found"):]
    cycles = {}
    for m in re.finditer(r"^\s+(\d+)\s+\\(\S+)\s+(-?\d+)\s", table, re.M):
        cycles.setdefault(int(m.group(1)), []).append("%s=%s" % (m.group(2), m.group(3)))
    for c in sorted(cycles):
        print("  cycle %d: %s" % (c, " ".join(cycles[c])))


def main(argv):
    a = parse_args(argv)
    tag = a.wrapper + "".join("_" + p.replace("=", "") for p in a.param) + "".join("_" + d for d in a.define) + (
        "_mutant" if a.mutate else "")
    out = a.out or os.path.join(HERE, "..", "..", "build-rtl", "formal", tag)
    os.makedirs(out, exist_ok=True)
    vcd = os.path.join(out, "counterexample.vcd")
    if os.path.exists(vcd):
        os.remove(vcd)
    with open(os.path.join(out, "proof.ys"), "w") as f:
        f.write(proof_script(a, rtl_files(a, out), vcd))
    log = os.path.join(out, "yosys.log")
    t0 = time.time()
    r = subprocess.run(["yosys", "-q", "-l", log, "-s", os.path.join(out, "proof.ys")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.time() - t0
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-4000:])
        sys.exit("run_proof: yosys failed, see %s" % log)
    with open(log) as f:
        text = f.read()
    proven, failed, line = verdict(a, text, vcd)
    print("%s %s: %s, %.1f s; log %s" % (a.wrapper, " ".join(a.param), line, seconds, os.path.normpath(log)))
    if failed and a.show:
        print_trace(text)
    ok = failed if a.expect_fail else proven
    if not ok:
        sys.exit("run_proof: expected the proof to %s" % ("fail (seeded bug)" if a.expect_fail else "pass"))


if __name__ == "__main__":
    main(sys.argv[1:])
