#!/bin/sh
# expect_elab_error.sh MESSAGE COMMAND...
# Passes only if COMMAND fails (non-zero exit) and its output contains MESSAGE: the elaboration-time
# parameter checks of rtl/*.sv must stop Verilator and Yosys alike and name the parameter and its rule.
msg=$1
shift
out=$("$@" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
  printf '%s\n' "$out"
  printf "FAIL: '%s' succeeded; an illegal parameter must stop elaboration\n" "$*"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -F -q -- "$msg"; then
  printf '%s\n' "$out"
  printf "FAIL: '%s' exited %s without naming %s\n" "$1" "$rc" "$msg"
  exit 1
fi
printf 'ok: exit %s, %s\n' "$rc" "$(printf '%s\n' "$out" | grep -F -m1 -- "$msg")"
