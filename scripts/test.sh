#!/usr/bin/env bash
# The whole test suite: set-up (idempotent), the style check
# (scripts/format-check.sh), build, then every GoogleTest case through ctest. GPU tests (label gpu) report "skipped" on a machine
# without a CUDA device. Extra arguments go to ctest: scripts/test.sh -L ff
# The whole suite (no arguments) then fuzzes every reader for a short fixed
# budget when clang is present (scripts/fuzz.sh: STARZK_FUZZ_SECONDS per
# harness, default 10, two at a time on two cores: about 90 s, plus
# the sanitizer build the first time); STARZK_SKIP_FUZZ=1 leaves it out.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/format-check.sh"
"$root/scripts/build.sh"
build=${STARZK_BUILD_DIR:-$root/build}
mkdir -p "$build/starpu-home"
export STARPU_HOME="$build/starpu-home" STARPU_SILENT=1
ctest --test-dir "$build" --output-on-failure -j"$(nproc)" "$@"
if [ $# -eq 0 ] && [ "${STARZK_SKIP_FUZZ:-0}" != 1 ]; then
  if command -v clang++ >/dev/null; then "$root/scripts/fuzz.sh" "${STARZK_FUZZ_SECONDS:-10}"
  else echo "[test] clang++ not found: fuzzing skipped (scripts/setup.sh installs clang)"; fi
fi
