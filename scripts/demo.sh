#!/usr/bin/env bash
# First command of the README: install what is missing, build, run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target netasic
./build/netasic run "$@"
