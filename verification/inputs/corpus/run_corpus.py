#!/usr/bin/env python3
"""Runs the bad-input corpus (verification/inputs/corpus/cases/, written by generate.py) against the netasic
binary: each case's input is written to a fresh directory, the command is run there, and its exit status and
message fragments are checked. Prints one line per failing case and a count; exit 1 if any case fails.

    run_corpus.py --netasic build/netasic [--cases DIR] [-j N] [--only SUBSTRING]
    run_corpus.py --netasic build/netasic --self-test     the runner must report a case whose expectation is wrong
"""
import argparse
import concurrent.futures
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_case(path):
    with open(path, "rb") as f:
        data = f.read()
    header, text = [], b""
    rest = data
    while rest.startswith(b"# "):
        line, _, rest = rest.partition(b"\n")
        header.append(line[2:].decode())
    text = rest
    case = {"name": os.path.basename(path), "expect": [], "file": None, "text": text}
    for h in header:
        key, _, value = h.partition(": ")
        if key == "expect":
            case["expect"].append(value)
        else:
            case[key] = value
    for k in ("args", "exit"):
        if k not in case:
            raise SystemExit(f"{path}: header '# {k}: ...' missing")
    return case


def run_case(netasic, case):
    with tempfile.TemporaryDirectory(prefix="netasic-corpus-") as d:
        file = os.path.join(d, case["file"]) if case["file"] else ""
        if file:
            with open(file, "wb") as f:
                f.write(case["text"])
        args = [a.replace("{file}", file).replace("{dir}", d) for a in shlex.split(case["args"])]
        try:
            p = subprocess.run([netasic] + args, cwd=d, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return f"{case['name']}: did not finish within 60 s"
        err = p.stderr.decode(errors="replace") + p.stdout.decode(errors="replace")
        problems = []
        if str(p.returncode) != case["exit"]:
            problems.append(f"exit {p.returncode}, expected {case['exit']}")
        for e in case["expect"]:
            e = e.replace("{dir}", d)
            if e not in err:
                problems.append(f"message lacks {e!r}")
        if "Traceback" in err or "internal error" in err:
            problems.append("a traceback or internal error")
        if problems:
            last = err.strip().splitlines()[-1] if err.strip() else "(no output)"
            return f"{case['name']}: {'; '.join(problems)}; got: {last}"
    return None


def run_all(netasic, cases, jobs):
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        return [r for r in ex.map(lambda c: run_case(netasic, c), cases) if r]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--netasic", required=True)
    ap.add_argument("--cases", default=os.path.join(HERE, "cases"))
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    a.netasic = os.path.abspath(a.netasic)  # cases run in their own directories
    if a.self_test:
        wrong = {"name": "self-test", "args": "run --seed -1 --quiet --out {dir}/out", "exit": "0", "expect": ["x"],
                 "file": None, "text": b""}
        right = dict(wrong, exit="2", expect=["sim.seed"])
        if run_case(a.netasic, wrong) is None or run_case(a.netasic, right) is not None:
            print("run_corpus: self-test FAILED: the runner does not tell a wrong expectation from a right one")
            return 1
        print("run_corpus: self-test passed")
        return 0
    files = sorted(f for f in os.listdir(a.cases) if f.endswith(".case") and (not a.only or a.only in f))
    cases = [parse_case(os.path.join(a.cases, f)) for f in files]
    failures = run_all(a.netasic, cases, a.j)
    for f in failures:
        print(f)
    print(f"run_corpus: {len(cases) - len(failures)} of {len(cases)} cases passed")
    return 1 if failures or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
