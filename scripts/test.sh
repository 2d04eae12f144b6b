#!/usr/bin/env bash
# Second command of the README: install what is missing, build everything, run the test suite (CTest).
# Long scenario runs carry the label `scenario` and are left out, as are the Slurm tests (`slurm`); run them with
#   ctest --test-dir build -L scenario
# With CI=true, warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
werror=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DNETASIC_WERROR=$werror -DNETASIC_RTL=ON >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build -j"$(nproc)" -LE 'scenario|slurm' --output-on-failure --timeout 600
