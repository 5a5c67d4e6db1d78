#!/usr/bin/env bash
# snarkjs groth16 prove and a warm `starzk prove --zkey`, one after the
# other, PAIRS times per size, on the keys, witnesses and validation
# records that vs-snarkjs.sh left in its OUT_DIR; prints each side's median
# and fastest wall seconds and the ratio of the medians (snarkjs / starzk).
#
#   bench/groth16/snarkjs-alternate.sh [BUILD_DIR] VS_OUT_DIR [PAIRS] [SIZES...]
#
# Why beside vs-snarkjs.sh's best-of runs: there each program runs back to
# back, so starzk's runs follow each other; here every starzk run follows a
# snarkjs run of several seconds and gigabytes, as a proof on a shared
# machine would, and the medians say what a typical run takes on both
# sides. The last proof of each side is checked with `snarkjs groth16
# verify`, so a fast wrong answer cannot count.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build}
dir=${2:?usage: snarkjs-alternate.sh [BUILD_DIR] VS_OUT_DIR [PAIRS] [SIZES...]}
pairs=${3:-7}
shift $(( $# > 3 ? 3 : $# )) || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(14 16)
exe="$build/bin/starzk"
snarkjs="node $root/tests/oracles/node_modules/snarkjs/build/cli.cjs"
[ -x "$exe" ] || { echo "snarkjs-alternate: $exe not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
median() { sort -n "$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
echo "log2_constraints,pairs,snarkjs_median_s,starzk_median_s,snarkjs_min_s,starzk_min_s,ratio_medians"
for k in "${sizes[@]}"; do
  d="$dir/k$k"
  [ -f "$d/key.zkey" ] && [ -d "$d/records" ] || { echo "snarkjs-alternate: $d has no key.zkey and records: run vs-snarkjs.sh first" >&2; exit 1; }
  : > "$tmp/s"; : > "$tmp/z"
  for _ in $(seq 1 "$pairs"); do
    t0=$(now)
    $snarkjs groth16 prove "$d/key.zkey" "$d/witness-0.wtns" "$tmp/ps.json" "$tmp/us.json" > /dev/null 2>&1 \
      || { echo "snarkjs-alternate: snarkjs failed at 2^$k" >&2; exit 1; }
    t1=$(now)
    STARZK_VALIDATED_KEYS="$d/records" "$exe" prove --zkey "$d/key.zkey" --wtns "$d/witness-0.wtns" \
      --proof "$tmp/pz.json" --public "$tmp/uz.json" > /dev/null 2>&1 \
      || { echo "snarkjs-alternate: starzk failed at 2^$k" >&2; exit 1; }
    t2=$(now)
    echo "$t1 - $t0" | bc >> "$tmp/s"
    echo "$t2 - $t1" | bc >> "$tmp/z"
  done
  for side in s z; do
    proof="$tmp/p$side.json"; pub="$tmp/u$side.json"
    $snarkjs groth16 verify "$d/vk.json" "$pub" "$proof" > /dev/null 2>&1 \
      || { echo "snarkjs-alternate: a proof at 2^$k failed snarkjs groth16 verify" >&2; exit 1; }
  done
  ms=$(median "$tmp/s"); mz=$(median "$tmp/z")
  printf '%s,%s,%.3f,%.3f,%.3f,%.3f,%.2f\n' "$k" "$pairs" "$ms" "$mz" "$(sort -n "$tmp/s" | head -1)" \
    "$(sort -n "$tmp/z" | head -1)" "$(echo "$ms / $mz" | bc -l)"
done
