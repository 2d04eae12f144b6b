#!/usr/bin/env bash
# Fuzzes the input parsers with libFuzzer (docs/reliability.md, "Fuzzing"):
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]      default 60 s, every target, a random seed
#   scripts/fuzz.sh --repeatable [TARGET...]              what CI runs: seed 1 and a fixed number of inputs per
#                                                         target (about a minute each here), so that the same
#                                                         commit fuzzes the same inputs on every machine
# Builds build-fuzz with clang (AddressSanitizer + UndefinedBehaviorSanitizer + libFuzzer), runs each target on a
# scratch copy of its seed corpus (verification/fuzz/corpus/<target>) and prints its executions and coverage.
# Exit status 1 when a target finds a crash, a sanitizer report, an unexpected exception or a hang (the
# reproducer is left in build-fuzz/findings/<target>/).
set -euo pipefail
cd "$(dirname "$0")/.."
repeatable=0
if [ "${1:-}" = --repeatable ]; then repeatable=1; shift; seconds=600; else seconds=${1:-60}; shift || true; fi
# Inputs per target in --repeatable mode: about 60 s each on this project's 2-core reference machine.
declare -A runs=([scenario]=50000 [topology]=1500000 [flow]=300000 [cdf]=1000000 [graphml]=250000)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(scenario topology flow cdf graphml); fi
if ! command -v clang++ >/dev/null; then echo "fuzz: clang++ is needed (Debian package clang)" >&2; exit 2; fi
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETASIC_FUZZ=ON -DNETASIC_RTL=OFF \
  >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
status=0
for t in "${targets[@]}"; do
  work=build-fuzz/corpus-work/$t
  findings=build-fuzz/findings/$t
  mkdir -p "$work" "$findings"
  log=build-fuzz/fuzz-$t.log
  rm -rf "${work:?}"/*
  t0=$(date +%s)
  limit=(-max_total_time="$seconds")
  # Repeatable: a fixed seed and input count; the time cap only guards against a machine far slower than ours.
  if [ $repeatable = 1 ]; then limit+=(-seed=1 -runs="${runs[$t]}"); fi
  # -timeout: an input taking longer than 10 s is a hang; -rss_limit_mb: one that needs 2 GB is a finding.
  if build-fuzz/verification/fuzz/fuzz_$t "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$findings/" "$work" "verification/fuzz/corpus/$t" >"$log" 2>&1; then
    result=ok
  else
    result=FINDING
    status=1
  fi
  executed=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo "?")
  corpus=$(ls "$work" | wc -l)
  echo "fuzz: $t: $result, $executed executions in $(( $(date +%s) - t0 )) s, coverage $cov edges, $ft features, corpus $corpus files (log $log)"
  if [ "$result" != ok ]; then tail -30 "$log"; fi
done
exit $status
