#!/usr/bin/env python3
"""Runs the reference scenarios and compares their outputs with the pinned hashes.

Each scenario in verification/reference/scenarios.json is a scenario file plus `--set` overrides, small
enough that the whole set runs in seconds. Its flows.csv, ports.csv and tables.json are hashed (SHA-256),
and so is summary.json without its wall-clock figures and resolved scenario; each hash is compared with
the one stored beside it. A change that moves a result on purpose
regenerates them with --update and says why in its commit message.

  scripts/check_reference.py --netasic build/netasic            # compare (exit 1 on any difference)
  scripts/check_reference.py --netasic build/netasic --update   # rewrite the stored hashes
  scripts/check_reference.py --netasic build/netasic --only flowcut-full-switch --keep out/ref
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REFERENCE = os.path.join(ROOT, "verification", "reference", "scenarios.json")
OUTPUTS = ("flows.csv", "ports.csv", "tables.json", "summary.json")
# summary.json is hashed in a canonical form without what legitimately differs between identical runs (wall
# time, speed) and without the resolved scenario (a new key with its default must not move every hash).
SUMMARY_VOLATILE = ("wall_seconds", "packet_hops_per_second", "scenario")


def sha256(path):
    h = hashlib.sha256()
    if path.endswith("summary.json"):
        with open(path) as f:
            summary = json.load(f)
        for key in SUMMARY_VOLATILE:
            summary.pop(key, None)
        h.update(json.dumps(summary, sort_keys=True).encode())
        return h.hexdigest()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def run(netasic, scenario, out_dir):
    cmd = [netasic, "run"]
    if scenario.get("config"):
        cmd.append(os.path.join(ROOT, scenario["config"]))
    for assignment in scenario.get("set", []):
        cmd += ["--set", assignment]
    cmd += ["--out", out_dir, "--quiet"]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return None, f"exit {proc.returncode}: {' '.join(cmd)}\n{proc.stderr.strip()}"
    return {name: sha256(os.path.join(out_dir, name)) for name in OUTPUTS}, None


def load_scenarios(only, tool):
    """The reference file and the scenarios `only` names (all when empty); chosen is None (after a message on
    stderr) when one of the names is not in the file."""
    with open(REFERENCE) as f:
        reference = json.load(f)
    scenarios = reference["scenarios"]
    names = [s["name"] for s in scenarios]
    for name in only:
        if name not in names:
            print(f"{tool}: no scenario '{name}' in {REFERENCE}; known: {', '.join(names)}", file=sys.stderr)
            return reference, None
    return reference, [s for s in scenarios if not only or s["name"] in only]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--netasic", required=True, help="the netasic binary to run")
    ap.add_argument("--update", action="store_true", help="store the hashes this binary produces")
    ap.add_argument("--only", action="append", default=[], help="run only this scenario (repeatable)")
    ap.add_argument("--keep", help="keep each scenario's outputs under this directory")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()

    reference, chosen = load_scenarios(args.only, "check_reference")
    if chosen is None:
        return 2

    work = tempfile.mkdtemp(prefix="netasic-ref-")
    try:
        def one(s):
            out = os.path.join(args.keep, s["name"]) if args.keep else os.path.join(work, s["name"])
            os.makedirs(out, exist_ok=True)
            return s, run(args.netasic, s, out)

        failures = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for s, (hashes, error) in pool.map(one, chosen):
                if error:
                    print(f"FAIL {s['name']}: {error}")
                    failures += 1
                    continue
                if args.update:
                    s["hashes"] = hashes
                    print(f"stored {s['name']}")
                    continue
                stored = s.get("hashes", {})
                moved = [n for n in OUTPUTS if stored.get(n) != hashes[n]]
                if moved:
                    failures += 1
                    print(f"FAIL {s['name']}: {', '.join(moved)} differ from the stored hashes")
                    for n in moved:
                        print(f"       {n}: stored {stored.get(n, '(none)')[:16]}, now {hashes[n][:16]}")
                else:
                    print(f"ok   {s['name']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if args.update:
        if failures:
            print(f"check_reference: {failures} scenario(s) failed to run; nothing stored", file=sys.stderr)
            return 1
        with open(REFERENCE, "w") as f:
            json.dump(reference, f, indent=2)
            f.write("\n")
        print(f"check_reference: {len(chosen)} scenario(s) stored in {os.path.relpath(REFERENCE, ROOT)}")
        return 0
    print(f"{len(chosen) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
