#!/bin/bash
# Installs netasic into a temporary prefix, moves the installed tree elsewhere (nothing may depend on the
# path it was installed to, nor on the source tree), builds each out-of-tree project below against it with
# find_package(netasic) and runs its programs, and runs the installed binary from another directory.
#   check_install.sh <build dir> <source dir> [cmake]
set -euo pipefail
build=$1
src=$2
cmake=${3:-cmake}

# Out-of-tree projects: a directory of the source tree, then the programs to run once it is built (each
# must exit 0). One line per project.
projects=(
  "verification/install/consumer two_hosts link_example"
  "examples/virtual-platform vp_lt vp_at"
)

work=$(mktemp -d "${TMPDIR:-/tmp}/netasic-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { echo "== $*"; }

step "install into $work/installed"
"$cmake" --install "$build" --prefix "$work/installed" > "$work/install.log"
mv "$work/installed" "$work/prefix"  # the tree must work from wherever it ends up
prefix=$work/prefix
for f in bin/netasic lib/cmake/netasic/netasicConfig.cmake lib/cmake/netasic/netasicConfigVersion.cmake \
         lib/cmake/netasic/netasicTargets.cmake include/netasic/tlm/model/link.h include/netasic/tlm/model/tlm_ports.h \
         include/netasic/tlm/common/units.h include/netasic/tlm/blocks/hash.h include/netasic/tb/simulation.h \
         share/netasic/synth-scripts/synth.sh share/netasic/tb/sizing/plot.py share/netasic/configs/default.yaml; do
  [ -e "$prefix/$f" ] || { echo "missing from the installed tree: $f"; exit 1; }
done
if grep -rq -- "$src" "$prefix/lib/cmake/netasic"; then
  echo "the installed CMake package names the source tree:"; grep -rn -- "$src" "$prefix/lib/cmake/netasic"; exit 1
fi

for entry in "${projects[@]}"; do
  read -r dir programs <<< "$entry"
  name=$(basename "$dir")
  step "build $dir against the installed package"
  "$cmake" -S "$src/$dir" -B "$work/build-$name" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > "$work/$name-configure.log" \
    || { cat "$work/$name-configure.log"; exit 1; }
  "$cmake" --build "$work/build-$name" -j 2 > "$work/$name-build.log" 2>&1 || { cat "$work/$name-build.log"; exit 1; }
  for program in $programs; do
    step "run $name/$program"
    (cd "$work" && "$work/build-$name/$program")
  done
done

step "run the installed binary from another directory"
mkdir -p "$work/elsewhere"
cd "$work/elsewhere"
"$prefix/bin/netasic" keys > keys.txt
grep -q '^sim.sync_quantum_ns' keys.txt || grep -q 'sim.sync_quantum_ns' keys.txt
"$prefix/bin/netasic" run --quiet --out out --set topology.fat_tree.k=4 --set workload.size_bytes=65536
[ -s out/summary.json ] && [ -s out/flows.csv ]
# The binary runs the synthesis script of its own installed tree: put a stand-in there and see it called.
printf '#!/bin/sh\necho "stand-in synth.sh at $0 for $1"\n' > "$prefix/share/netasic/synth-scripts/synth.sh"
out=$("$prefix/bin/netasic" synth flowsail)
echo "$out"
[ "$out" = "stand-in synth.sh at $prefix/share/netasic/synth-scripts/synth.sh for flowsail" ]
step "installed tree works from $prefix"
