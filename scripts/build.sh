#!/usr/bin/env bash
# Configure and build starzk into ./build (or $STARZK_BUILD_DIR) with CMake
# and Ninja: every layer, the starzk CLI, the tests and the benchmarks.
# CUDA kernels are compiled for sm_90 when nvcc is found. Extra CMake
# arguments are passed through: scripts/build.sh -DSTARZK_CUDA=OFF
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STARZK_BUILD_DIR:-$root/build}
if [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log" >&2; echo "[build] cmake configure failed (log: $build/configure.log)" >&2; exit 1; }
echo "[build] building in $build"
cmake --build "$build" -j"$(nproc)"
