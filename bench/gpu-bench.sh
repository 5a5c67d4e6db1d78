#!/usr/bin/env bash
# Runs the GPU kernel benchmarks and writes OUT_DIR/gpu-bench.csv
# (name,n,ms,ratio_to_floor). Called by scripts/gpu-run.sh after the tests.
#   bench/gpu-bench.sh BUILD_DIR OUT_DIR
# STARZK_MSM_LOGS / STARZK_NTT_LOGS / STARZK_SETUP_LOGS / STARZK_SPMV_LOGS /
# STARZK_KEY_CHECK_LOGS override the sizes (e.g. "20 22 24 26"; SpMV default
# "20 22 24"; key_check default "22": check and decompress of G1 and G2
# points, with a points-per-second row each);
# bench_cuda_msm also reads STARZK_MSM_G2_LOGS (G2 sizes, default
# "16 20 22 24"), STARZK_MSM_WINDOWS / STARZK_MSM_G2_WINDOWS (window sweeps),
# STARZK_MSM_PIECES / STARZK_MSM_PIECES_GROUPS / STARZK_MSM_PIECES_WINDOWS /
# STARZK_MSM_PIECES_LEVELS
# (the MSM in pieces, bases streamed, as a streamed key query runs),
# STARZK_MSM_BESIDE and
# STARZK_MSM_SETS and STARZK_MSM_FOLD_WAYS (bench/cuda/bench_msm.cpp);
# STARZK_GPU_BENCHES picks a subset of the programs (default
# "ntt msm setup spmv key_check"). With setup, `starzk gen` at 2^STARZK_SETUP_GEN_LOG
# (default 20; empty skips it) runs with --gpu on and --gpu off: rows
# gen_gpu / gen_cpu (whole command, ms), the last column gpu/cpu.
set -uo pipefail
build=${1:?usage: gpu-bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: gpu-bench.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
csv="$out/gpu-bench.csv"
echo "name,n,ms,ratio_to_floor" > "$csv"
rc=0
for b in ${STARZK_GPU_BENCHES:-ntt msm setup spmv key_check}; do
  exe=$(find "$build" -name "bench_cuda_$b" -type f -perm -u+x | head -1)
  if [ -z "$exe" ]; then echo "gpu-bench: bench_cuda_$b not built" >&2; rc=1; continue; fi
  var="STARZK_$(echo $b | tr a-z A-Z)_LOGS"
  echo "== bench_cuda_$b ${!var:-}"
  # shellcheck disable=SC2086
  "$exe" ${!var:-} | tee -a "$csv" || rc=1
done

# starzk gen (circuit, witness, development key), key on the GPU vs the CPU.
gen_log=${STARZK_SETUP_GEN_LOG-20}
if [[ " ${STARZK_GPU_BENCHES:-ntt msm setup spmv key_check} " == *" setup "* && -n "$gen_log" ]]; then
  bin="$build/bin/starzk"
  [ -x "$bin" ] || { echo "gpu-bench: $bin not built (gen rows skipped)" >&2; rc=1; gen_log=""; }
fi
if [[ -n "$gen_log" && " ${STARZK_GPU_BENCHES:-ntt msm setup spmv key_check} " == *" setup "* ]]; then
  tmp=$(mktemp -d)
  declare -A gen_ms
  for mode in on off; do
    echo "== starzk gen --log2 $gen_log --convention bellman --gpu $mode"
    t0=$(date +%s%N)
    if STARPU_SILENT=1 "$bin" gen --log2 "$gen_log" --convention bellman --out "$tmp/$mode" --gpu "$mode" \
        > "$tmp/$mode.log" 2>&1; then
      gen_ms[$mode]=$(( ($(date +%s%N) - t0) / 1000000 ))
      grep "fixed-base" "$tmp/$mode.log"
    else
      cat "$tmp/$mode.log" >&2; rc=1
    fi
    rm -rf "${tmp:?}/$mode"
  done
  if [[ -n "${gen_ms[on]:-}" && -n "${gen_ms[off]:-}" ]]; then
    ratio=$(awk "BEGIN { printf \"%.4g\", ${gen_ms[on]} / ${gen_ms[off]} }")
    echo "gen_gpu,$((1 << gen_log)),${gen_ms[on]},$ratio" | tee -a "$csv"
    echo "gen_cpu,$((1 << gen_log)),${gen_ms[off]},1" | tee -a "$csv"
  fi
  rm -rf "$tmp"
fi
echo "== wrote $csv"
exit $rc
