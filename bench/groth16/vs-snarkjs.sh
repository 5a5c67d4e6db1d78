#!/usr/bin/env bash
# starzk prove vs snarkjs groth16 prove on the same circuit, key and witness,
# on this machine, at 2^10 .. 2^16 constraints (Filecoin-shaped circuits from
# `starzk gen`; one development key in the snarkjs convention per size,
# which `snarkjs groth16 prove` accepts as it accepts its own).
#
#   bench/groth16/vs-snarkjs.sh [BUILD_DIR] [OUT_DIR] [SIZES...]
# Writes OUT_DIR/vs-snarkjs.csv: log2_constraints,starzk_s,snarkjs_s,ratio
# (wall seconds of the whole CLI run, best of 3 for starzk and of 2 for
# snarkjs; ratio = snarkjs / starzk). Both proofs are checked with
# `snarkjs groth16 verify` so a fast wrong answer cannot count.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
out=${2:-$root/out/bench}
shift $(( $# > 2 ? 2 : $# )) || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10 12 14 16)
starzk="$build/bin/starzk"
snarkjs="node $root/tests/oracles/node_modules/snarkjs/build/cli.cjs"
mkdir -p "$out"
csv="$out/vs-snarkjs.csv"
echo "log2_constraints,starzk_s,snarkjs_s,ratio" > "$csv"

now() { date +%s.%N; }
best_of() {  # best_of N cmd...: the smallest wall time of N runs
  local n=$1; shift; local best=
  for _ in $(seq "$n"); do
    local t0 t1 d; t0=$(now); "$@" > /dev/null 2>&1; t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
  done
  printf '%.3f' "$best"
}

for k in "${sizes[@]}"; do
  d="$out/k$k"; mkdir -p "$d"
  "$starzk" gen --log2 "$k" --partitions 1 --out "$d" > /dev/null
  "$starzk" setup --r1cs "$d/circuit.r1cs" --zkey "$d/key.zkey" --vkey "$d/vk.json" > /dev/null 2>&1
  w="$d/witness-0.wtns"
  ts=$(best_of 3 "$starzk" prove --zkey "$d/key.zkey" --wtns "$w" --proof "$d/p1.json" --public "$d/pub1.json")
  tj=$(best_of 2 $snarkjs groth16 prove "$d/key.zkey" "$w" "$d/p2.json" "$d/pub2.json")
  $snarkjs groth16 verify "$d/vk.json" "$d/pub1.json" "$d/p1.json" > /dev/null
  $snarkjs groth16 verify "$d/vk.json" "$d/pub2.json" "$d/p2.json" > /dev/null
  ratio=$(echo "$tj / $ts" | bc -l)
  printf '%s,%s,%s,%.2f\n' "$k" "$ts" "$tj" "$ratio" | tee -a "$csv"
done
