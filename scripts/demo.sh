#!/usr/bin/env bash
# First command of the README: install what is missing, build, run the default scenario.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --core
# A new build directory starts without the Verilated RTL models (the default scenario needs none of them);
# the README's second command turns them on. An existing build directory keeps its settings.
if [ -f build/CMakeCache.txt ]; then
  cmake -S . -B build >/dev/null
else
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DNETASIC_RTL=OFF >/dev/null
fi
cmake --build build -j"$(nproc)" --target netasic
./build/netasic run "$@"
