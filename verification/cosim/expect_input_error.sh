#!/bin/sh
# expect_input_error.sh NETASIC 'WORD1 WORD2 ...' ARGS...
# Bad input that only a build with RTL co-simulation can judge (a block point that was not Verilated):
# passes only if `NETASIC ARGS...` exits with status 2 and its message names every word.
netasic=$1
words=$2
shift 2
out=$("$netasic" "$@" 2>&1)
rc=$?
if [ "$rc" -ne 2 ]; then
  printf '%s\n' "$out"
  printf 'FAIL: exit %s, expected 2\n' "$rc"
  exit 1
fi
for w in $words; do
  if ! printf '%s\n' "$out" | grep -F -q -- "$w"; then
    printf '%s\n' "$out"
    printf 'FAIL: the message does not name %s\n' "$w"
    exit 1
  fi
done
printf 'ok: exit 2, %s\n' "$(printf '%s\n' "$out" | head -n 1)"
