#!/bin/sh
# One scripted Yosys flow for one block at one parameter point; see synth.py for what it writes.
#   synth-scripts/synth.sh BLOCK [K=V]... [--flow abc|techmap] [--timing] [--blackbox MODULE] [--out DIR]
#                          [--check-memory-bits N] [--check-flip-flops N]
# Pre-layout estimates only (see docs/synthesis.md).
here=$(cd "$(dirname "$0")" && pwd)
# The system interpreter: it has the Debian packages (matplotlib for the sweep plot).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
exec "$PY" "$here/synth.py" "$@"
