#!/usr/bin/env bash
# Cold and warm `starzk prove --zkey` on one Filecoin-shaped circuit of 2^k
# constraints: where the time of a first proof with a new key goes (hash,
# validation of every key point, proof) and what a second start costs.
#
#   bench/groth16/cold-start.sh [BUILD_DIR] [OUT_DIR] [K] [extra prove args...]
# K defaults to 20. The key is a development key in the snarkjs convention
# made by `starzk gen` (on the GPU when there is one). Runs, each a whole
# CLI process timed by the wall clock:
#   cold      an empty validation record folder: hash, read, validate, prove
#             (twice; the key file is in the page cache both times)
#   warm      the record of the cold run present (twice)
#   cold-cpu  cold with `--gpu off`: validation and proof on the CPU cores
#             (skipped when STARZK_COLD_CPU=0)
# Each run's stderr line about the key (points validated where and how
# long, or "validated before") is printed after its time. Records live in
# OUT_DIR/records, never in the user's cache.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
out=${2:-$root/out/cold-start}
k=${3:-20}
shift $(( $# > 3 ? 3 : $# )) || true
starzk="$build/bin/starzk"
d="$out/k$k"
rec="$out/records"
mkdir -p "$d"

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }  # seconds since $1

t0=$(date +%s.%N)
"$starzk" gen --log2 "$k" --partitions 1 --out "$d" > /dev/null
echo "gen 2^$k (circuit, key, witness): $(since "$t0") s"
ls -l "$d"

run() {  # run LABEL [prove args...]: one timed prove, then its key line
  local label=$1; shift
  local t0 dt err="$out/$label.stderr"
  t0=$(date +%s.%N)
  STARZK_VALIDATED_KEYS=$rec "$starzk" prove --zkey "$d/key.zkey" --wtns "$d/witness-0.wtns" \
    --proof "$d/proof-$label.json" --public "$d/public-$label.json" "$@" > "$out/$label.stdout" 2> "$err"
  dt=$(since "$t0")
  printf '%-9s %7s s   %s | %s\n' "$label" "$dt" "$(grep -h 'starzk: .*key.zkey' "$err" | head -1)" \
    "$(cat "$out/$label.stdout")"
}

for i in 1 2; do rm -rf "$rec"; run "cold$i" "$@"; done
for i in 1 2; do run "warm$i" "$@"; done
if [ "${STARZK_COLD_CPU:-1}" = 1 ]; then rm -rf "$rec"; run cold-cpu --gpu off; fi
