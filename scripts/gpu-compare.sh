#!/usr/bin/env bash
# Kernel benchmarks of the working tree against an earlier commit, both
# built and run in one call on the GPU machine, so every ratio in
# docs/benchmarks.md comes from one run.
#
#   scripts/gpu-compare.sh prepare COMMIT   # here: git archive of COMMIT
#       into .deps/carry/base.tar (carried with the rest of .deps/carry)
#   scripts/gpu-compare.sh run OUTDIR       # there: build both, bench both
#
# `run` builds the working tree's bench_cuda_msm and bench_cuda_ntt through
# scripts/gpu-run.sh (no tests), the base tree's in /tmp/starzk-base, then
# runs new, then base, for each and writes OUTDIR/<bench>_{new,base}.csv and
# OUTDIR/compare.csv (name,n,new ms,base ms,new/base). Environment:
# STARZK_COMPARE_BENCHES (default "msm ntt"; also key_check),
# STARZK_COMPARE_MSM_LOGS (default "20 22 24 26"), STARZK_COMPARE_NTT_LOGS
# (default "20 22 24 26 27"), STARZK_COMPARE_KEY_CHECK_LOGS (default "22");
# the benches' own variables pass through (STARZK_MSM_G2_LOGS defaults to ""
# here: no G2 rows).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
base_tar="$root/.deps/carry/base.tar"
case "${1:-}" in
prepare)
  commit=${2:?usage: gpu-compare.sh prepare COMMIT}
  mkdir -p "$root/.deps/carry"
  git -C "$root" archive "$commit" -o "$base_tar"
  echo "gpu-compare: $commit -> $base_tar"
  ;;
run)
  out=${2:?usage: gpu-compare.sh run OUTDIR}
  [ -f "$base_tar" ] || { echo "gpu-compare: $base_tar missing: run 'prepare COMMIT' first" >&2; exit 1; }
  mkdir -p "$out"
  benches=${STARZK_COMPARE_BENCHES:-msm ntt}
  targets=$(for b in $benches; do printf 'bench_cuda_%s ' "$b"; done)
  STARZK_TARGETS="$targets" STARZK_SKIP_TESTS=1 STARZK_GPU_BENCH=0 STARZK_PROVE_CHECK=0 \
    "$root/scripts/gpu-run.sh" run "$out/build" > "$out/build-new.log" 2>&1 \
    || { tail -20 "$out/build-new.log"; exit 1; }
  base=/tmp/starzk-base
  rm -rf "$base" && mkdir -p "$base" && tar xf "$base_tar" -C "$base"
  cmake -S "$base" -B "$base/b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTARPU_PREFIX=/tmp/starzk-deps/starpu-cuda \
    -DSTARZK_EXTRA_INCLUDE="$root/.deps/carry/include" -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc \
    > "$out/build-base.log" 2>&1
  cmake --build "$base/b" -j"$(nproc)" --target $targets >> "$out/build-base.log" 2>&1 \
    || { grep -E 'error' "$out/build-base.log" | head -20; exit 1; }
  export STARZK_MSM_G2_LOGS="${STARZK_MSM_G2_LOGS-}"
  for b in $benches; do
    case $b in
    msm) logs=${STARZK_COMPARE_MSM_LOGS:-20 22 24 26} ;;
    ntt) logs=${STARZK_COMPARE_NTT_LOGS:-20 22 24 26 27} ;;
    key_check) logs=${STARZK_COMPARE_KEY_CHECK_LOGS:-22} ;;
    *) echo "gpu-compare: unknown bench '$b'" >&2; exit 1 ;;
    esac
    # shellcheck disable=SC2086
    "$root/build-gpu/bench/cuda/bench_cuda_$b" $logs > "$out/${b}_new.csv"
    # shellcheck disable=SC2086
    "$base/b/bench/cuda/bench_cuda_$b" $logs > "$out/${b}_base.csv"
  done
  # Rows present in both runs, side by side.
  { echo "name,n,new_ms,base_ms,new_over_base"
    for b in $benches; do
      awk -F, 'NR == FNR { if ($1 != "name") base[$1 "," $2] = $3; next }
               ($1 "," $2) in base && base[$1 "," $2] > 0 {
                 printf "%s,%s,%s,%s,%.3f\n", $1, $2, $3, base[$1 "," $2], $3 / base[$1 "," $2] }' \
        "$out/${b}_base.csv" "$out/${b}_new.csv"
    done; } > "$out/compare.csv"
  cat "$out/compare.csv"
  ;;
*)
  echo "usage: scripts/gpu-compare.sh prepare COMMIT | run OUTDIR" >&2; exit 2 ;;
esac
