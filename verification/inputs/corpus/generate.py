#!/usr/bin/env python3
"""Writes the bad-input corpus (verification/inputs/corpus/cases/) from the scenario-key table and a list of
hand-written cases. Each case is one file:

    # args: run {file} --quiet          the command line ({file}: the case's input file, {dir}: its directory)
    # file: scenario.yaml               the name the input is written under (absent: no input file)
    # exit: 2                           the expected exit status
    # expect: sim.seed                  a fragment the message on stderr must contain (repeatable)
    <the input file's contents, to the end>

Usage: generate.py KEYS_TSV      (KEYS_TSV: the output of `netasic keys`, the documented key table)

The expected fragments come from the documented contract (key names, the accepted ranges and choices of
docs/scenario-keys.md, the messages of docs/input-files.md), not from running the product. Regenerate after
adding keys; cases/ is replaced as a whole.
"""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases")


class Corpus:
    def __init__(self):
        self.cases = []

    def add(self, name, args, expect, text=None, file=None, exit_status=2):
        self.cases.append((name, args, exit_status, expect if isinstance(expect, list) else [expect], file, text))

    def write(self):
        shutil.rmtree(OUT, ignore_errors=True)
        os.makedirs(OUT)
        names = set()
        for i, (name, args, status, expect, file, text) in enumerate(self.cases):
            assert name not in names, name
            names.add(name)
            lines = [f"# args: {args}"]
            if file:
                lines.append(f"# file: {file}")
            lines.append(f"# exit: {status}")
            lines += [f"# expect: {e}" for e in expect]
            # Latin-1, so that "\xff" in a case is the byte 0xff, not its UTF-8 encoding.
            with open(os.path.join(OUT, f"{i:04d}-{name}.case"), "wb") as f:
                f.write(("\n".join(lines) + "\n" + (text or "")).encode("latin-1"))
        print(f"{len(self.cases)} cases in {OUT}")


def fmt_number(x):
    return str(int(x)) if float(x).is_integer() else repr(x)


def key_cases(c, keys):
    """For every documented key: wrong type, each side of its range, an unknown choice, on the command line
    (--set) and in a scenario file (nested YAML, so the file and line are named)."""
    for name, typ, unit, default, allowed in keys:
        bad = []  # (label, value, fragments)
        if typ in ("integer", "number"):
            lo, hi = allowed.split("..")
            lo, hi = float(lo), float(hi)
            bad.append(("word", "abc", [f"{name} = 'abc'", "not a"]))
            bad.append(("above", fmt_number(hi * 2 + 1), [name, "out of range", allowed]))
            if lo > 0:
                bad.append(("below", fmt_number(lo / 2 if typ == "number" else lo - 1), [name, "out of range"]))
            else:
                bad.append(("negative", "-1", [name, "out of range"]))
            if typ == "integer":
                bad.append(("hex", "0x10", [name, "not an integer"]))
                bad.append(("fraction", "2.5", [name, "not an integer"]))
        elif typ == "choice":
            bad.append(("unknown", "no_such_choice", [name, "not an accepted value", allowed.split(",")[0].replace("one of: ", "")]))
        elif typ == "boolean":
            bad.append(("yes", "yes", [name, "not a boolean"]))
        for label, value, frag in bad:
            slug = name.replace(".", "_")
            c.add(f"set-{slug}-{label}", f"run --set {name}={value} --quiet --out {{dir}}/out", frag)
        if bad:
            label, value, frag = bad[0]
            parts = name.split(".")
            yaml = "".join("  " * i + p + ":\n" for i, p in enumerate(parts[:-1]))
            yaml += "  " * (len(parts) - 1) + f"{parts[-1]}: {value}\n"
            c.add(f"yaml-{name.replace('.', '_')}-{label}", "run {file} --quiet --out {dir}/out",
                  ["scenario.yaml:" + str(len(parts)), name], yaml, "scenario.yaml")


def scenario_file_cases(c):
    y = "run {file} --quiet --out {dir}/out"
    c.add("yaml-unknown-key", y, ["scenario.yaml:2", "workload.lod"], "workload:\n  lod: 0.5\n", "scenario.yaml")
    c.add("yaml-duplicate-key", y, ["scenario.yaml:3", "duplicate key"], "sim:\n  seed: 3\nsim:\n  seed: 4\n", "scenario.yaml")
    c.add("yaml-nested-and-dotted", y, ["scenario.yaml:3", "sim.seed"], "sim:\n  seed: 3\nsim.seed: 4\n", "scenario.yaml")
    c.add("yaml-second-document", y, ["scenario.yaml:3", "second YAML document"], "sim.seed: 3\n---\nsim.seed: 4\n", "scenario.yaml")
    c.add("yaml-not-a-map", y, ["scenario.yaml"], "- a\n- b\n", "scenario.yaml")
    c.add("yaml-syntax", y, ["scenario.yaml:", "not valid YAML"], "sim: [unclosed\n", "scenario.yaml")
    c.add("yaml-list-for-scalar", y, ["scenario.yaml:2", "sim.seed"], "sim:\n  seed: [1, 2]\n", "scenario.yaml")
    c.add("yaml-map-for-scalar", y, ["scenario.yaml:2", "sim.seed"], "sim:\n  seed:\n    a: 1\n", "scenario.yaml")
    c.add("yaml-tab-indent", y, ["scenario.yaml"], "sim:\n\tseed: 3\n", "scenario.yaml")
    c.add("yaml-binary", y, ["scenario.yaml"], "\x7fELF\x02\x01\x01\x00garbage:\n", "scenario.yaml")
    # Found by fuzzing: yaml-cpp threw a non-YAML-error on these, or ran for ever.
    c.add("yaml-seq-as-key", y, ["scenario.yaml:1", "not a scenario key and value"], "? [a, b]\n: 1\n", "scenario.yaml")
    c.add("yaml-map-as-key", y, ["scenario.yaml:1", "not a scenario key and value"], "{a: 1}: 2\n", "scenario.yaml")
    c.add("yaml-deep-flow", y, ["scenario.yaml:1", "nested more than 16 deep"], "sim: " + "[" * 40 + "]" * 40 + "\n",
          "scenario.yaml")
    c.add("yaml-not-utf8", y, ["scenario.yaml:2", "byte 0xff is not UTF-8"], "sim:\n  seed: 1\xff\n", "scenario.yaml")
    c.add("yaml-control-char", y, ["scenario.yaml:2", "control character 0x08"], "sim:\n  seed: 1 # a\x08b\n",
          "scenario.yaml")
    c.add("yaml-nul", y, ["scenario.yaml:2", "control character 0x00"], "sim:\n  seed: 1\x00\n", "scenario.yaml")
    # yaml-cpp's LoadAll looped for ever, memory growing, on a ',' no document can start with.
    c.add("yaml-comma-at-top", y, ["scenario.yaml:1", "',' cannot start a value"], ", x\n", "scenario.yaml")
    c.add("yaml-comma-after-comment", y, ["scenario.yaml:2", "',' cannot start a value"], "#a\n  , x\n",
          "scenario.yaml")
    c.add("yaml-comma-after-scalar", y, ["scenario.yaml:1", "',' cannot start a value"], '"s", x\n', "scenario.yaml")
    c.add("yaml-comma-second-document", y, ["scenario.yaml:3", "',' cannot start a value"], "sim.seed: 3\n---\n, x\n",
          "scenario.yaml")
    c.add("yaml-missing-file", "run {dir}/absent.yaml --quiet --out {dir}/out", ["absent.yaml"])
    c.add("yaml-directory", "run {dir} --quiet --out {dir}/out", ["is a directory"])


TOPO_OK = "6 2 6\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n2 5 100Gbps 1000ns 0\n3 5 100Gbps 1000ns 0\n4 5 400Gbps 1000ns 0\n4 5 400Gbps 1000ns 0\n"


def with_line(text, n, replacement):
    lines = text.split("\n")
    lines[n - 1] = replacement
    return "\n".join(lines)


def topology_cases(c):
    a = "run --set topology.type=file --set topology.file={file} --quiet --out {dir}/out"
    cases = [
        ("empty", "", ["topo.txt:1", "empty"]),
        ("header-word", with_line(TOPO_OK, 1, "six 2 6"), ["topo.txt:1", "node_count"]),
        ("header-short", with_line(TOPO_OK, 1, "6 2"), ["topo.txt:1", "node_count switch_count link_count"]),
        ("header-long", with_line(TOPO_OK, 1, "6 2 6 9"), ["topo.txt:1", "trailing garbage"]),
        ("nodes-zero", with_line(TOPO_OK, 1, "0 2 6"), ["topo.txt:1", "node_count is 0"]),
        ("switches-zero", with_line(TOPO_OK, 1, "6 0 6"), ["topo.txt:1", "switch_count is 0"]),
        ("links-zero", with_line(TOPO_OK, 1, "6 2 0"), ["topo.txt:1", "link_count is 0"]),
        ("switches-above-nodes", with_line(TOPO_OK, 1, "6 7 6"), ["topo.txt:1", "larger than node_count"]),
        ("nodes-huge", with_line(TOPO_OK, 1, "4000000000 2 6"), ["topo.txt:1", "supported maximum"]),
        ("no-switch-line", "6 2 6\n", ["topo.txt:1", "switch ids"]),
        ("switch-ids-short", with_line(TOPO_OK, 2, "4"), ["topo.txt:2", "switch_count 2"]),
        ("switch-id-range", with_line(TOPO_OK, 2, "4 6"), ["topo.txt:2", "ids 0..5"]),
        ("switch-id-twice", with_line(TOPO_OK, 2, "4 4"), ["topo.txt:2", "listed twice"]),
        ("switch-id-word", with_line(TOPO_OK, 2, "4 s5"), ["topo.txt:2", "switch id"]),
        ("links-short", with_line(TOPO_OK, 8, ""), ["topo.txt", "link_count 6"]),
        ("link-4-fields", with_line(TOPO_OK, 3, "0 4 100Gbps 1000ns"), ["topo.txt:3", "5 fields"]),
        ("link-6-fields", with_line(TOPO_OK, 3, "0 4 100Gbps 1000ns 0 x"), ["topo.txt:3", "trailing garbage"]),
        ("link-node-range", with_line(TOPO_OK, 3, "0 99 100Gbps 1000ns 0"), ["topo.txt:3", "node 99"]),
        ("link-self", with_line(TOPO_OK, 7, "4 4 400Gbps 1000ns 0"), ["topo.txt:7", "to itself"]),
        ("rate-zero", with_line(TOPO_OK, 3, "0 4 0Gbps 1000ns 0"), ["topo.txt:3", "rate must be positive"]),
        ("rate-no-unit", with_line(TOPO_OK, 3, "0 4 100 1000ns 0"), ["topo.txt:3", "no unit"]),
        ("rate-bytes", with_line(TOPO_OK, 3, "0 4 100GBps 1000ns 0"), ["topo.txt:3", "bytes per second"]),
        ("rate-unknown-unit", with_line(TOPO_OK, 3, "0 4 100Gb 1000ns 0"), ["topo.txt:3", "unknown unit"]),
        ("rate-tiny", with_line(TOPO_OK, 3, "0 4 0.001bps 1000ns 0"), ["topo.txt:3", "outside the supported"]),
        ("rate-huge", with_line(TOPO_OK, 3, "0 4 1000Tbps 1000ns 0"), ["topo.txt:3", "outside the supported"]),
        ("rate-word", with_line(TOPO_OK, 3, "0 4 fastGbps 1000ns 0"), ["topo.txt:3", "rate"]),
        ("delay-no-unit", with_line(TOPO_OK, 3, "0 4 100Gbps 1000 0"), ["topo.txt:3", "no unit"]),
        ("delay-negative", with_line(TOPO_OK, 3, "0 4 100Gbps -5ns 0"), ["topo.txt:3", "delay"]),
        ("delay-huge", with_line(TOPO_OK, 3, "0 4 100Gbps 5000s 0"), ["topo.txt:3", "above the supported maximum"]),
        ("delay-unit", with_line(TOPO_OK, 3, "0 4 100Gbps 5min 0"), ["topo.txt:3", "unknown unit"]),
        ("error-rate-one", with_line(TOPO_OK, 3, "0 4 100Gbps 1000ns 1"), ["topo.txt:3", "error_rate"]),
        ("error-rate-negative", with_line(TOPO_OK, 3, "0 4 100Gbps 1000ns -0.1"), ["topo.txt:3", "error_rate"]),
        ("error-rate-word", with_line(TOPO_OK, 3, "0 4 100Gbps 1000ns lots"), ["topo.txt:3", "error_rate"]),
        ("host-to-host", with_line(TOPO_OK, 3, "0 1 100Gbps 1000ns 0"), ["topo.txt:3", "two hosts"]),
        ("host-link-moved-away", with_line(TOPO_OK, 4, "0 5 100Gbps 1000ns 0"), ["topo.txt:1", "node 1 is a host"]),
        ("binary", "\x00\x01\x02garbage\n", ["topo.txt:1"]),
    ]
    for name, text, expect in cases:
        c.add(f"topology-{name}", a, expect, text, "topo.txt")
    c.add("topology-missing", "run --set topology.type=file --set topology.file={dir}/none.txt --quiet --out {dir}/out",
          ["none.txt", "cannot open"])
    c.add("topology-type-file-without-file", "run --set topology.type=file --quiet --out {dir}/out", ["topology.file"])
    c.add("topology-disconnected", a, ["topo.txt", "not connected"],
          "6 2 4\n4 5\n0 4 100Gbps 1000ns 0\n1 4 100Gbps 1000ns 0\n2 5 100Gbps 1000ns 0\n3 5 100Gbps 1000ns 0\n", "topo.txt")
    g = "run --set topology.type=file --set topology.file={file} --quiet --out {dir}/out"
    graph = ('<graphml><key id="t" for="node" attr.name="type"/><key id="r" for="edge" attr.name="rate_gbps"/>'
             '<key id="d" for="edge" attr.name="delay_ns"/>\n<graph>\n'
             '<node id="s"><data key="t">switch</data></node>\n<node id="a"><data key="t">host</data></node>\n'
             '<node id="b"><data key="t">host</data></node>\n'
             '<edge source="a" target="s"><data key="r">100</data><data key="d">500</data></edge>\n'
             '<edge source="b" target="s"><data key="r">100</data><data key="d">500</data></edge>\n</graph></graphml>\n')
    for name, old, new, expect in [
        ("type", ">host<", ">nic<", ["fabric.graphml:4", "type 'nic'"]),
        ("rate", ">100<", ">-1<", ["fabric.graphml:6", "rate_gbps"]),
        ("delay", ">500<", ">x<", ["fabric.graphml:6", "delay_ns"]),
        ("unknown-node", 'target="s">', 'target="q">', ["fabric.graphml:6", "'q' is not a node"]),
        ("unclosed", "</graph></graphml>", "</graph>", ["fabric.graphml:1", "never closed"]),
        ("duplicate-node", '"b"><data', '"a"><data', ["fabric.graphml:5", "used twice"]),
        ("no-graph", "<graph>", "<grap>", ["fabric.graphml"]),
    ]:
        c.add(f"graphml-{name}", g, expect, graph.replace(old, new, 1), "fabric.graphml")


FLOWS_OK = "3\n0 1 3 100 200000000 2\n1 2 0 65535 1 0\n2 0 7 0 1000 1.5e-6\n"


def flow_cases(c):
    a = "run --set topology.fat_tree.k=4 --set workload.type=file --set workload.file={file} --quiet --out {dir}/out"
    cases = [
        ("empty", "", ["flow.txt:1", "empty"]),
        ("count-word", with_line(FLOWS_OK, 1, "three"), ["flow.txt:1", "flow count"]),
        ("count-garbage", with_line(FLOWS_OK, 1, "3 x"), ["flow.txt:1", "trailing garbage"]),
        ("count-short", with_line(FLOWS_OK, 1, "4"), ["flow.txt", "declares 4 flows"]),
        ("fields-4", with_line(FLOWS_OK, 2, "0 1 3 100"), ["flow.txt:2", "6 fields"]),
        ("fields-7", with_line(FLOWS_OK, 2, "0 1 3 100 2000 2 x"), ["flow.txt:2", "trailing garbage"]),
        ("layouts-mixed", with_line(FLOWS_OK, 3, "1 2 0 1 0"), ["flow.txt:3", "one layout"]),
        ("size-zero", with_line(FLOWS_OK, 2, "0 1 3 100 0 2"), ["flow.txt:2", "size_bytes is 0"]),
        ("size-exponent", with_line(FLOWS_OK, 2, "0 1 3 100 1e6 2"), ["flow.txt:2", "size_bytes"]),
        ("size-too-many-packets", with_line(FLOWS_OK, 2, "0 1 3 100 17592186048512 2"), ["flow.txt:2", "32 bits"]),
        ("start-negative", with_line(FLOWS_OK, 2, "0 1 3 100 2000 -1"), ["flow.txt:2", "start_seconds"]),
        ("start-inf", with_line(FLOWS_OK, 2, "0 1 3 100 2000 inf"), ["flow.txt:2", "start_seconds"]),
        ("start-nan", with_line(FLOWS_OK, 2, "0 1 3 100 2000 nan"), ["flow.txt:2", "start_seconds"]),
        ("start-late", with_line(FLOWS_OK, 2, "0 1 3 100 2000 2e6"), ["flow.txt:2", "start_seconds"]),
        ("start-unit", with_line(FLOWS_OK, 2, "0 1 3 100 2000 2s"), ["flow.txt:2", "start_seconds"]),
        ("self", with_line(FLOWS_OK, 3, "2 2 0 65535 1 0"), ["flow.txt:3", "to itself"]),
        ("dport", with_line(FLOWS_OK, 2, "0 1 3 65536 2000 2"), ["flow.txt:2", "dport"]),
        ("priority", with_line(FLOWS_OK, 2, "0 1 8 100 2000 2"), ["flow.txt:2", "priority"]),
        ("src-word", with_line(FLOWS_OK, 2, "h0 1 3 100 2000 2"), ["flow.txt:2", "src"]),
        ("dst-negative", with_line(FLOWS_OK, 2, "0 -1 3 100 2000 2"), ["flow.txt:2", "dst"]),
        ("src-not-host", with_line(FLOWS_OK, 2, "99 1 3 100 2000 2"), ["flow.txt:2", "99"]),
        ("binary", "\x00\x01\x02\n", ["flow.txt:1"]),
    ]
    for name, text, expect in cases:
        c.add(f"flow-{name}", a, expect, text, "flow.txt")
    c.add("flow-missing", "run --set workload.type=file --set workload.file={dir}/none.txt --quiet --out {dir}/out",
          ["none.txt", "cannot open"])


def cdf_cases(c):
    a = "run --set workload.type=random --set workload.cdf={file} --quiet --out {dir}/out"
    for name, text, expect in [
        ("empty", "", ["my.cdf:1", "no data lines"]),
        ("one-column", "100\n200\n", ["my.cdf:1", "2 columns"]),
        ("four-columns", "0 1 0 0\n", ["my.cdf:1", "found 4"]),
        ("mixed", "0 0\n100 1 100\n", ["my.cdf:2", "cannot be mixed"]),
        ("size-decreasing", "0 0\n200 50\n100 100\n", ["my.cdf:3", "must not decrease"]),
        ("cdf-decreasing", "0 0\n100 60\n200 50\n300 100\n", ["my.cdf:3", "must not decrease"]),
        ("all-zero", "0 0\n0 100\n", ["my.cdf", "at least 1 byte"]),
        ("no-100", "0 0\n100 50\n", ["my.cdf", "100"]),
        ("cdf-above-100", "0 0\n100 150\n", ["my.cdf:2"]),
        ("cdf-negative", "0 -5\n100 100\n", ["my.cdf:1"]),
        ("size-word", "zero 0\n100 100\n", ["my.cdf:1"]),
        ("size-negative", "-10 0\n100 100\n", ["my.cdf:1"]),
        ("binary", "\x00\x01\x02\n", ["my.cdf:1"]),
    ]:
        c.add(f"cdf-{name}", a, expect, text, "my.cdf")
    c.add("cdf-unknown-builtin", "run --set workload.type=random --set workload.cdf=nosuchcdf --quiet --out {dir}/out",
          ["workload.cdf", "nosuchcdf"])


def jobs_cases(c):
    a = "run --set workload.type=jobs --set workload.jobs_file={file} --quiet --out {dir}/out"
    ok = "  - op: all_reduce\n    hosts: 4\n    size_bytes: 4096\n"
    for name, text, expect in [
        ("unknown-field", "jobs:\n" + ok + "    colour: red\n", ["jobs.yaml:5", "unknown job field"]),
        ("shared-host", "jobs:\n  - op: all_reduce\n    hosts: [0, 1]\n    size_bytes: 4096\n"
                        "  - op: all_reduce\n    hosts: [1, 2]\n    size_bytes: 4096\n", ["jobs.yaml:6", "already belongs"]),
        ("too-many-hosts", "jobs:\n  - op: all_reduce\n    hosts: 129\n    size_bytes: 4096\n", ["jobs.yaml:3", "hosts"]),
        ("no-op", "jobs:\n  - hosts: 4\n    size_bytes: 4096\n", ["jobs.yaml:2", "no 'op'"]),
        ("bad-op", "jobs:\n  - op: reduce\n    hosts: 4\n    size_bytes: 4096\n", ["jobs.yaml:2", "op"]),
        ("bad-gap", "jobs:\n" + ok + "    gap_us: -1\n", ["jobs.yaml:5", "gap_us"]),
        ("not-a-list", "jobs: 3\n", ["jobs.yaml", "a list of jobs"]),
        ("comma", ", x\n", ["jobs.yaml:1", "cannot start a value"]),
        ("duplicate-name", "jobs:\n  - name: a\n    op: all_reduce\n    hosts: 4\n    size_bytes: 4096\n"
                           "  - name: a\n    op: all_reduce\n    hosts: 4\n    size_bytes: 4096\n",
         ["jobs.yaml:6", "used twice"]),
    ]:
        c.add(f"jobs-{name}", a, expect, text, "jobs.yaml")
    c.add("jobs-no-file", "run --set workload.type=jobs --quiet --out {dir}/out", ["workload.jobs_file"])


def sweep_cases(c):
    a = "sweep {file} --out {dir}/sweep"
    base = "set:\n  topology.fat_tree.k: 4\ngrid:\n"
    for name, text, expect in [
        ("unknown-key", base + "  flowcut.table.entriez: [16]\n", ["flowcut.table.entriez"]),
        ("bad-value", base + "  flowcut.table.entries: [0]\n", ["flowcut.table.entries"]),
        ("empty-list", base + "  flowcut.table.entries: []\n", ["flowcut.table.entries"]),
        ("set-unknown", "set:\n  workload.lod: 0.5\ngrid:\n  flowcut.table.entries: [16]\n", ["workload.lod"]),
        ("not-a-map", "- 1\n- 2\n", ["sweep.yaml"]),
        ("syntax", "grid: [unclosed\n", ["sweep.yaml"]),
        ("no-grid", "set:\n  sim.seed: 1\n", ["sweep.yaml"]),
        ("comma-at-top", ", x\n", ["sweep.yaml:1", "',' cannot start a value"]),
        ("second-document", base + "  flowcut.table.entries: [16]\n---\nseeds: [1]\n", ["sweep.yaml:6", "second YAML"]),
        ("unknown-section", base + "  flowcut.table.entries: [16]\nextra: 1\n", ["extra"]),
        ("grid-not-list", base + "  flowcut.table.entries: 16\n", ["flowcut.table.entries"]),
        ("seeds-negative", base + "  flowcut.table.entries: [16]\nseeds: [-1]\n", ["seed"]),
    ]:
        c.add(f"sweep-{name}", a, expect, text, "sweep.yaml")
    ok = base + "  flowcut.table.entries: [16]\n"
    c.add("sweep-jobs-negative", "sweep {file} -j -1 --out {dir}/sweep", ["-j"], ok, "sweep.yaml")
    c.add("sweep-retries-negative", "sweep {file} --retries -1 --out {dir}/sweep", ["--retries"], ok, "sweep.yaml")
    c.add("sweep-directory", "sweep {dir} --out {dir}/sweep", ["is a directory"])
    c.add("sweep-missing", "sweep {dir}/none.yaml --out {dir}/sweep", ["none.yaml"])


def cli_cases(c):
    o = " --quiet --out {dir}/out"
    for name, args, expect in [
        ("unknown-command", "frobnicate", ["unknown command 'frobnicate'", "run"]),
        ("unknown-option", "run --frob", ["--frob"]),
        ("set-no-equals", "run --set sim.seed" + o, ["sim.seed"]),
        ("set-unknown-key", "run --set sim.sed=3" + o, ["sim.sed", "sim.seed"]),
        ("seed-negative", "run --seed -1" + o, ["sim.seed", "out of range"]),
        ("seed-word", "run --seed abc" + o, ["sim.seed"]),
        ("seed-huge", "run --seed 1000000000000000001" + o, ["sim.seed", "out of range"]),
        ("seed-hex", "run --seed 0x10" + o, ["sim.seed"]),
        ("out-is-file", "run --quiet --out {dir}/afile", ["exists and is not a directory"]),
        ("log-level", "--log-level loud run" + o, ["loud"]),
        ("plot-missing", "plot {dir}/none.csv --x a --y b --out {dir}/p.png", ["none.csv"]),
        ("synth-param", "synth flowlet_table --param Entries", ["Entries"]),
        ("size-silicon-entries-not-power-of-two", "size --silicon entries=1000", ["entries", "power of two"]),
        ("size-silicon-entries-word", "size --silicon entries=abc", ["entries", "not a number"]),
        ("size-silicon-entries-too-large", "size --silicon entries=2097152", ["entries", "1,048,576"]),
        ("size-entries-without-silicon", "size entries=4096", ["entries", "--silicon"]),
        ("size-yosys-without-silicon", "size --yosys", ["--yosys", "--silicon"]),
        ("size-silicon-with-vs", "size --silicon --vs latency_us=1,2", ["--silicon", "--vs"]),
        ("taper", "run --set topology.fat_tree.taper=1.3" + o, ["taper", "1.3"]),
        ("leaf-spine-remove-link", "run --set topology.type=leaf_spine --set topology.leaf_spine.remove_links=99-0" + o,
         ["remove_links"]),
        ("trace-nothing", "run --set trace.enabled=true" + o, ["trace.flows"]),
        ("trace-bad-switch", "run --set trace.enabled=true --set trace.switches=9999" + o, ["trace.switches", "9999"]),
        ("trace-window", "run --set trace.enabled=true --set trace.flows=all --set trace.start_us=5 --set trace.end_us=2" + o,
         ["trace.end_us"]),
        ("stats-window", "run --set stats.window_start_us=50 --set stats.window_end_us=20" + o,
         ["stats.window_end_us", "stats.window_start_us"]),
        ("stats-bad-switch", "run --set stats.sample_us=1 --set stats.switches=x" + o, ["stats.switches"]),
        ("export-bad-key", "export-topology --set topology.fat_tree.k=3", ["topology.fat_tree.k"]),
        ("partition-too-many-ranks", "partition --ranks 9", ["9 ranks", "8 pods"]),
        ("partition-zero-ranks", "partition --ranks 0", ["--ranks"]),
        ("partition-bad-rule", "partition --by star", ["--by", "star"]),
        ("partition-pod-on-torus", "partition --set topology.type=torus --by pod", ["pod", "torus"]),
        ("partition-group-on-fat-tree", "partition --by group", ["group", "fat tree"]),
        ("partition-bad-key", "partition --set topology.fat_tree.k=3", ["topology.fat_tree.k"]),
        ("workload-none-without-host-interface", "run --set workload.type=none" + o,
         ["workload.type", "nic.host_interface"]),
        ("host-interface-with-reorder", "run --set nic.host_interface=true --set nic.transport=reorder" + o,
         ["nic.host_interface", "nic.transport"]),
        ("ack-every-with-basic", "run --set nic.ack_every=4" + o, ["nic.ack_every", "basic"]),
        ("ack-every-with-tcp", "run --set nic.transport=tcp --set nic.ack_every=4" + o, ["nic.ack_every", "nic.tcp.ack_every"]),
        ("flowlet-impl-without-letflow", "run --set switch.flowlet_table.impl=rtl" + o,
         ["switch.flowlet_table.impl", "routing.policy"]),
        ("flowcut-impl-without-flowcut", "run --set switch.flowcut_table.impl=rtl_sc --set routing.policy=letflow" + o,
         ["switch.flowcut_table.impl", "routing.policy"]),
        ("reorder-impl-without-reorder", "run --set nic.reorder_buffer.impl=rtl --set nic.transport=sr" + o,
         ["nic.reorder_buffer.impl", "nic.transport"]),
        ("fgfc-impl-without-flowcut", "run --set switch.fgfc_generator.impl=rtl" + o,
         ["switch.fgfc_generator.impl", "routing.policy"]),
        ("fgfc-impl-with-nic-only", "run --set switch.fgfc_generator.impl=rtl_sc --set routing.policy=flowcut "
         "--set flowcut.variant=nic_only" + o, ["switch.fgfc_generator.impl", "flowcut.variant"]),
        ("flowsail-impl-without-flowsail", "run --set switch.flowsail.impl=rtl" + o,
         ["switch.flowsail.impl", "switch.flow_control"]),
        ("flowsail-impl-with-bfc", "run --set switch.flowsail.impl=rtl_sc --set switch.flow_control=bfc "
         "--set link.flow_control=lossless" + o, ["switch.flowsail.impl", "switch.flow_control"]),
    ]:
        c.add(f"cli-{name}", args, expect, "x\n" if name == "out-is-file" else None,
              "afile" if name == "out-is-file" else None)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    keys = []
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            keys.append((parts[0], parts[1], parts[2], parts[3], parts[4].replace("integer ", "").replace("number ", "")))
    c = Corpus()
    key_cases(c, keys)
    scenario_file_cases(c)
    topology_cases(c)
    flow_cases(c)
    cdf_cases(c)
    sweep_cases(c)
    jobs_cases(c)
    cli_cases(c)
    c.write()


if __name__ == "__main__":
    main()
