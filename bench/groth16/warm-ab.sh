#!/usr/bin/env bash
# Warm (or cold) `starzk prove --zkey` of two starzk binaries, alternated
# run by run on the keys, witnesses and validation records that
# vs-snarkjs.sh left in its OUT_DIR (k<k>/key.zkey, witness-0.wtns,
# records), so both see the same machine state. Prints per size the fastest and the median wall seconds of
# each binary and the ratio of the medians (B over A). STARZK_AB_KEY picks
# another key file of the same folders (key.szkc: the key cache; key.params:
# a bellman key, proved with the folder's circuit.r1cs). STARZK_AB_COLD=1
# makes every run cold instead: an empty record folder each time, so each
# prove validates the key (its subgroup checks) before proving.
#
#   bench/groth16/warm-ab.sh A_BIN B_BIN VS_OUT_DIR [RUNS] [SIZES...]
set -euo pipefail
a=${1:?usage: warm-ab.sh A_BIN B_BIN VS_OUT_DIR [RUNS] [SIZES...]}
b=${2:?usage}
dir=${3:?usage}
runs=${4:-15}
shift $(( $# > 4 ? 4 : $# )) || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(14 16)
key=${STARZK_AB_KEY:-key.zkey}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
for k in "${sizes[@]}"; do
  d="$dir/k$k"
  [ -f "$d/$key" ] || { echo "warm-ab: $d/$key missing: run vs-snarkjs.sh first" >&2; exit 1; }
  key_args=(--zkey "$d/$key")
  [[ $key == *.params ]] && key_args=(--params "$d/$key" --r1cs "$d/circuit.r1cs")
  : > "$tmp/a"; : > "$tmp/b"
  for _ in $(seq 1 "$runs"); do
    for side in a b; do
      bin=$a; [ $side = b ] && bin=$b
      records="$d/records"
      [ "${STARZK_AB_COLD:-0}" = 1 ] && { rm -rf "$tmp/records"; mkdir "$tmp/records"; records="$tmp/records"; }
      t0=$(now)
      STARZK_VALIDATED_KEYS="$records" "$bin" prove "${key_args[@]}" --wtns "$d/witness-0.wtns" \
        --proof "$tmp/p.json" --public "$tmp/pub.json" > /dev/null 2>&1 \
        || { echo "warm-ab: $bin failed at 2^$k" >&2; exit 1; }
      echo "$(now) - $t0" | bc >> "$tmp/$side"
    done
  done
  med() { sort -n "$1" | sed -n "$(( (runs + 1) / 2 ))p"; }
  printf '2^%s A min %.3f median %.3f  B min %.3f median %.3f  B/A %.3f\n' "$k" \
    "$(sort -n "$tmp/a" | head -1)" "$(med "$tmp/a")" "$(sort -n "$tmp/b" | head -1)" "$(med "$tmp/b")" \
    "$(echo "$(med "$tmp/b") / $(med "$tmp/a")" | bc -l)"
done
