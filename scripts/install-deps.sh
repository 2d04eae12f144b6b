#!/usr/bin/env bash
# Installs the Debian 12 packages netasic needs, and only those that are missing.
# Idempotent: a machine that already has everything is left untouched (no apt-get run at all).
#   install-deps.sh          everything: the model, the RTL tests and co-simulation, plots, Slurm sweeps
#   install-deps.sh --core   only what building and running the model needs (the README's first command)
set -euo pipefail

core=(
  build-essential cmake pkg-config ccache
  libsystemc-dev libboost-dev libgtest-dev libgmock-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libsqlite3-dev protobuf-compiler libprotobuf-dev
  python3
)
extra=(
  verilator yosys clang libclang-rt-14-dev
  python3-matplotlib jq
  slurm-wlm munge
  libopenmpi-dev openmpi-bin
)
case "${1:-}" in
  --core) packages=("${core[@]}") ;;
  "") packages=("${core[@]}" "${extra[@]}") ;;
  *) echo "install-deps: unknown option '$1' (accepted: --core, or nothing for everything)" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
    echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
log=$(mktemp)
if ! "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
  cat "$log" >&2; echo "install-deps: apt-get install failed" >&2; exit 1
fi
rm -f "$log"
echo "install-deps: done"
