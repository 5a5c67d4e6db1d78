#!/usr/bin/env bash
# starzk prove vs snarkjs groth16 prove on the same circuit, key and witness,
# on this machine, in the same run (Filecoin-shaped circuits from
# `starzk gen` at 2^k constraints; one development key in the snarkjs
# convention per size, which `snarkjs groth16 prove` accepts as it accepts
# its own).
#
#   bench/groth16/vs-snarkjs.sh [BUILD_DIR] [OUT_DIR] [SIZES...]
# Writes OUT_DIR/vs-snarkjs.csv with wall seconds of whole CLI runs:
#   starzk_cold_s   starzk prove --zkey key.zkey with an empty validation
#                   record folder: the key is hashed, read and fully
#                   validated (every point on its curve and in its
#                   subgroup, which snarkjs does not do), best of 2
#   starzk_warm_s   the same with the record of that key present (a hash
#                   and the queries decoded without curve checks),
#                   best of 3
#   starzk_cache_s  starzk prove --zkey key.szkc (the cache, remembered by
#                   `starzk cache`, its queries read where it is mapped),
#                   best of 3
#   snarkjs_s       snarkjs groth16 prove key.zkey, best of 2
# and the ratios snarkjs / starzk for cold, warm and the cache. Every proof
# is checked with `snarkjs groth16 verify`, so a fast wrong answer cannot
# count. The records live in OUT_DIR/k*/records (never the user's cache). One line
# per size also goes to OUT_DIR/points.txt: the key's points and the
# validation line of a cold run (where the time goes).
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
echo "log2_constraints,starzk_cold_s,starzk_warm_s,starzk_cache_s,snarkjs_s,ratio_cold,ratio_warm,ratio_cache" > "$csv"
: > "$out/points.txt"

now() { date +%s.%N; }
best_of() {  # best_of N cmd...: the smallest wall time of N runs
  local n=$1; shift; local best=
  for _ in $(seq "$n"); do
    local t0 t1 dt; t0=$(now); "$@" > /dev/null 2>&1; t1=$(now)
    dt=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc -l)" = 1 ]; then best=$dt; fi
  done
  printf '%.3f' "$best"
}

cold() {  # cold RECORDS cmd...: one run with an empty record folder
  local rec=$1; shift
  rm -rf "$rec"; mkdir -p "$rec"
  (export STARZK_VALIDATED_KEYS=$rec; "$@")
}

for k in "${sizes[@]}"; do
  d="$out/k$k"; mkdir -p "$d"
  rec="$d/records"
  "$starzk" gen --log2 "$k" --partitions 1 --out "$d" --no-key > /dev/null
  "$starzk" setup --r1cs "$d/circuit.r1cs" --zkey "$d/key.zkey" --vkey "$d/vk.json" > /dev/null 2>&1
  # A key's digest is remembered once its file has been quiet for 2 s
  # (docs/usage.md); a key in use is older than that, so the runs start then.
  sleep 2
  w="$d/witness-0.wtns"
  prove_zkey() { "$starzk" prove --zkey "$d/key.zkey" --wtns "$w" --proof "$d/p$1.json" --public "$d/pub$1.json"; }
  tz=$(best_of 2 cold "$rec" prove_zkey 0)
  line=$(cold "$rec" prove_zkey 0 2>&1 >/dev/null | grep 'points validated' || true)
  echo "2^$k: $line" >> "$out/points.txt"
  # The record of the last cold run is in place now: warm runs.
  export STARZK_VALIDATED_KEYS=$rec
  tw=$(best_of 3 prove_zkey 1)
  "$starzk" cache --zkey "$d/key.zkey" --out "$d/key.szkc" > /dev/null 2>&1
  sleep 2
  tc=$(best_of 3 "$starzk" prove --zkey "$d/key.szkc" --wtns "$w" --proof "$d/p3.json" --public "$d/pub3.json")
  unset STARZK_VALIDATED_KEYS
  tj=$(best_of 2 $snarkjs groth16 prove "$d/key.zkey" "$w" "$d/p2.json" "$d/pub2.json")
  for i in 0 1 2 3; do $snarkjs groth16 verify "$d/vk.json" "$d/pub$i.json" "$d/p$i.json" > /dev/null; done
  printf '%s,%s,%s,%s,%s,%.2f,%.2f,%.2f\n' "$k" "$tz" "$tw" "$tc" "$tj" "$(echo "$tj / $tz" | bc -l)" \
    "$(echo "$tj / $tw" | bc -l)" "$(echo "$tj / $tc" | bc -l)" | tee -a "$csv"
done
cat "$out/points.txt"
