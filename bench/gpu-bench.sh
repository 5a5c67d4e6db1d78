#!/usr/bin/env bash
# Runs the GPU kernel benchmarks and writes OUT_DIR/gpu-bench.csv
# (name,n,ms,ratio_to_floor). Called by scripts/gpu-run.sh after the tests.
#   bench/gpu-bench.sh BUILD_DIR OUT_DIR
# STARZK_MSM_LOGS / STARZK_NTT_LOGS override the sizes (e.g. "20 22 24 26");
# STARZK_GPU_BENCHES picks a subset of the programs (default "ntt msm").
set -uo pipefail
build=${1:?usage: gpu-bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: gpu-bench.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
csv="$out/gpu-bench.csv"
echo "name,n,ms,ratio_to_floor" > "$csv"
rc=0
for b in ${STARZK_GPU_BENCHES:-ntt msm}; do
  exe=$(find "$build" -name "bench_cuda_$b" -type f -perm -u+x | head -1)
  if [ -z "$exe" ]; then echo "gpu-bench: bench_cuda_$b not built" >&2; rc=1; continue; fi
  var="STARZK_$(echo $b | tr a-z A-Z)_LOGS"
  echo "== bench_cuda_$b ${!var:-}"
  # shellcheck disable=SC2086
  "$exe" ${!var:-} | tee -a "$csv" || rc=1
done
echo "== wrote $csv"
exit $rc
