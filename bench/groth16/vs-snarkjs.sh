#!/usr/bin/env bash
# starzk prove vs snarkjs groth16 prove on the same circuit, key and witness,
# on this machine, at 2^10 .. 2^16 constraints (Filecoin-shaped circuits from
# `starzk gen`; one development key in the snarkjs convention per size,
# which `snarkjs groth16 prove` accepts as it accepts its own).
#
#   bench/groth16/vs-snarkjs.sh [BUILD_DIR] [OUT_DIR] [SIZES...]
# Writes OUT_DIR/vs-snarkjs.csv with wall seconds of whole CLI runs:
#   starzk_zkey_s   starzk prove --zkey key.zkey (reads and fully validates
#                   the key every run: every point on its curve and in its
#                   subgroup, which snarkjs does not do), best of 2
#   starzk_cache_s  starzk prove --zkey key.szkc (the key validated once by
#                   `starzk cache`, then mmap-loaded), best of 3
#   snarkjs_s       snarkjs groth16 prove key.zkey, best of 2
# and the ratios snarkjs / starzk for both. Every proof is checked with
# `snarkjs groth16 verify`, so a fast wrong answer cannot count.
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
echo "log2_constraints,starzk_zkey_s,starzk_cache_s,snarkjs_s,ratio_zkey,ratio_cache" > "$csv"

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
  "$starzk" gen --log2 "$k" --partitions 1 --out "$d" --no-key > /dev/null
  "$starzk" setup --r1cs "$d/circuit.r1cs" --zkey "$d/key.zkey" --vkey "$d/vk.json" > /dev/null 2>&1
  w="$d/witness-0.wtns"
  "$starzk" cache --zkey "$d/key.zkey" --out "$d/key.szkc" > /dev/null
  tz=$(best_of 2 "$starzk" prove --zkey "$d/key.zkey" --wtns "$w" --proof "$d/p0.json" --public "$d/pub0.json")
  tc=$(best_of 3 "$starzk" prove --zkey "$d/key.szkc" --wtns "$w" --proof "$d/p1.json" --public "$d/pub1.json")
  tj=$(best_of 2 $snarkjs groth16 prove "$d/key.zkey" "$w" "$d/p2.json" "$d/pub2.json")
  for i in 0 1 2; do $snarkjs groth16 verify "$d/vk.json" "$d/pub$i.json" "$d/p$i.json" > /dev/null; done
  printf '%s,%s,%s,%s,%.2f,%.2f\n' "$k" "$tz" "$tc" "$tj" "$(echo "$tj / $tz" | bc -l)" "$(echo "$tj / $tc" | bc -l)" | tee -a "$csv"
done
