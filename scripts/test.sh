#!/usr/bin/env bash
# The whole test suite: set-up (idempotent), build, then every GoogleTest
# case through ctest. GPU tests (label gpu) report "skipped" on a machine
# without a CUDA device. Extra arguments go to ctest: scripts/test.sh -L ff
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${STARZK_BUILD_DIR:-$root/build}
mkdir -p "$build/starpu-home"
export STARPU_HOME="$build/starpu-home" STARPU_SILENT=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
