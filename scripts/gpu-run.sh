#!/usr/bin/env bash
# One whole run on a GPU machine: build starzk there, run the gpu-labelled
# tests (and the rest of the suite), run the GPU benchmarks, and leave logs
# and result tables in an output folder.
#
#   scripts/gpu-run.sh prepare        # here, on the development machine:
#       copies a prebuilt StarPU (STARZK_STARPU_TARBALL, docs/gpu.md) and the header-only
#       libraries (CLI11, nlohmann-json, toml++, fmt) into .deps/carry/,
#       the one folder to take along (device tool: carry [".deps/carry"]).
#   scripts/gpu-run.sh run OUTDIR     # there: unpack, build, test, bench.
#
# Environment for `run`: STARZK_GPU_TESTS (ctest -L regex, default "gpu"),
# STARZK_GPU_TESTS_R (ctest -R regex, default all),
# STARZK_GPU_TESTS_TIMEOUT (seconds for the whole ctest; none by default),
# STARZK_GPU_TESTS_J (ctest -j, default 1), STARZK_GTEST_FILTER (with
# STARZK_TARGETS: the --gtest_filter for the test binaries run directly,
# each within STARZK_GPU_TESTS_TIMEOUT; STARZK_GTEST_ARGS: more arguments
# for them, e.g. --gtest_also_run_disabled_tests),
# STARZK_GPU_BENCH=0 to skip benchmarks, STARZK_FULL_SUITE=1 to also run
# every other test there, STARZK_TARGETS="t1 t2" to build only those targets,
# STARZK_SKIP_TESTS=1 to run no test, STARZK_PROVE_CHECK=0 to skip
# scripts/gpu-prove-check.sh (the main flow with `prove --gpu on`), STARZK_PROOF_BENCH=1 to run bench/proof-bench.sh (whole proofs through the
# DAG; its own STARZK_PROOF_* variables), STARZK_SECTOR=1 to run
# bench/sector-bench.sh (a whole sector: gen, prove, verify; its own
# STARZK_SECTOR_* variables; STARZK_SECTOR_WITH_TESTS=1 starts it beside
# the tests instead of after them, for a gen that would not fit one call
# after the tests), STARZK_COLD_START=K to run bench/groth16/cold-start.sh
# at 2^K (after the sector; STARZK_COLD_CPU as there; STARZK_COLD_START_ARGS
# more prove arguments, e.g. --json), STARZK_SOAK=1 to run
# bench/soak.sh last (its own STARZK_SOAK_* variables; STARZK_SOAK_GPUS=1
# for the GPU soak), STARZK_REPLAY_CHECK="K..." to record batches at 2^K
# under starzk, eager and dmdas and replay them (bench/replay-check.sh's
# record step, into OUTDIR/replay-check; its simulate step runs later on a
# machine with the SimGrid build; its STARZK_REPLAY_* variables, e.g.
# STARZK_REPLAY_CPU_WARMUP=2 to calibrate the CPU models first;
# STARZK_REPLAY_TIMEOUT=S stops it after S seconds, keeping what it
# recorded so far), STARZK_POLICY_BENCH="ARGS" to run `starzk bench ARGS`
# (a policy comparison, e.g. "-k 24 -j 4 -n 4 -c 2 -p starzk,dmdas
# --repeat 3 --no-baseline --run-timeout 90") into OUTDIR/policy-bench with
# its JSON-lines store there (STARZK_POLICY_BENCH_TIMEOUT=S stops it after
# S seconds; its inputs are left behind). StarPU's sampling folder (bus and codelet models) is
# copied to OUTDIR/starpu-sampling. Everything but gpu-run.log is
# packed into OUTDIR/results.tgz at the end (the device tool brings back at
# most 8 files).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
carry="$root/.deps/carry"
mode=${1:-}

case "$mode" in
prepare)
  tarball=${STARZK_STARPU_TARBALL:-}
  [ -n "$tarball" ] && [ -f "$tarball" ] || {
    echo "gpu-run: set STARZK_STARPU_TARBALL to a StarPU 1.3.10 prefix built with CUDA for the GPU machine" \
      "(a .tar.gz holding starpu-cuda/ with ENV.sh; docs/gpu.md)" >&2
    exit 1
  }
  mkdir -p "$carry/include"
  cp -f "$tarball" "$carry/starpu-1.3.10-cuda13-prefix.tar.gz"
  for d in CLI nlohmann toml++ fmt; do
    [ -d "/usr/include/$d" ] || { echo "gpu-run: /usr/include/$d missing: run scripts/setup.sh first" >&2; exit 1; }
    rm -rf "$carry/include/$d"; cp -r "/usr/include/$d" "$carry/include/"
  done
  du -sh "$carry"
  ;;
run)
  out=${2:?usage: gpu-run.sh run OUTDIR}
  mkdir -p "$out"
  log="$out/gpu-run.log"
  exec > >(tee -a "$log") 2>&1
  echo "== starzk gpu run $(date -u +%FT%TZ) on $(hostname)"
  nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader || true
  deps=/tmp/starzk-deps
  mkdir -p "$deps"
  tar xzf "$carry/starpu-1.3.10-cuda13-prefix.tar.gz" -C "$deps"
  # shellcheck disable=SC1091
  . "$deps/starpu-cuda/ENV.sh"
  export STARPU_HOME="$deps/starpu-home" STARPU_SILENT=1
  mkdir -p "$STARPU_HOME"
  build="$root/build-gpu"
  t0=$(date +%s)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSTARPU_PREFIX="$deps/starpu-cuda" -DSTARZK_EXTRA_INCLUDE="$carry/include" \
    -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > "$out/configure.log" 2>&1 \
    || { tail -40 "$out/configure.log"; exit 1; }
  targets=()
  [ -n "${STARZK_TARGETS:-}" ] && targets=(--target ${STARZK_TARGETS})
  cmake --build "$build" -j"$(nproc)" "${targets[@]}" > "$out/build.log" 2>&1 || { grep -E 'error|Error' "$out/build.log" | head -40; exit 1; }
  echo "== built in $(( $(date +%s) - t0 )) s"
  starpu_machine_display 2>/dev/null | head -20 || true
  rc=0
  sector_pid=
  if [ "${STARZK_SECTOR:-0}" = 1 ] && [ "${STARZK_SECTOR_WITH_TESTS:-0}" = 1 ]; then
    "$root/bench/sector-bench.sh" "$build" "$out" > "$out/sector-bench.log" 2>&1 &
    sector_pid=$!
  fi
  if [ "${STARZK_SKIP_TESTS:-0}" = 1 ]; then
    echo "== tests skipped (STARZK_SKIP_TESTS=1)" > "$out/gpu-tests.log"
  elif [ -n "${STARZK_TARGETS:-}" ]; then
    # a partial build: ctest would trip over the test binaries not built, so
    # run the chosen test binaries directly
    : > "$out/gpu-tests.log"  # exists even when no target is a test
    for t in ${STARZK_TARGETS}; do
      exe=$(find "$build" -name "$t" -type f -perm -u+x | head -1)
      [ -n "$exe" ] && case "$t" in test_*) ${STARZK_GPU_TESTS_TIMEOUT:+timeout "$STARZK_GPU_TESTS_TIMEOUT"} "$exe" \
        ${STARZK_GTEST_FILTER:+--gtest_filter="$STARZK_GTEST_FILTER"} ${STARZK_GTEST_ARGS:-} >> "$out/gpu-tests.log" 2>&1 || rc=$?;; esac
    done
  else
    ${STARZK_GPU_TESTS_TIMEOUT:+timeout "$STARZK_GPU_TESTS_TIMEOUT"} ctest --test-dir "$build" -j"${STARZK_GPU_TESTS_J:-1}" -L "${STARZK_GPU_TESTS:-gpu}" ${STARZK_GPU_TESTS_R:+-R "$STARZK_GPU_TESTS_R"} \
      --output-on-failure > "$out/gpu-tests.log" 2>&1 || rc=$?
  fi
  tail -15 "$out/gpu-tests.log"
  if [ "${STARZK_PROVE_CHECK:-1}" = 1 ] && [ -x "$build/bin/starzk" ]; then
    "$root/scripts/gpu-prove-check.sh" "$build" "$out/prove-check" > "$out/prove-check.log" 2>&1 \
      && echo "== prove --gpu on check: OK" || { rc=1; echo "== prove --gpu on check: FAILED"; tail -20 "$out/prove-check.log"; }
  fi
  if [ "${STARZK_FULL_SUITE:-0}" = 1 ]; then
    ${STARZK_GPU_TESTS_TIMEOUT:+timeout "$STARZK_GPU_TESTS_TIMEOUT"} ctest --test-dir "$build" -LE gpu -j8 --output-on-failure > "$out/cpu-tests.log" 2>&1 || rc=$?
    tail -5 "$out/cpu-tests.log"
  fi
  if [ "${STARZK_GPU_BENCH:-1}" = 1 ] && [ -x "$root/bench/gpu-bench.sh" ]; then
    "$root/bench/gpu-bench.sh" "$build" "$out" || rc=$?
  fi
  if [ "${STARZK_PROOF_BENCH:-0}" = 1 ]; then
    # A development key from a GPU path that failed its tests is no key.
    if grep -qE "(CudaFixedBase|CudaSetup).*\(Failed\)" "$out/gpu-tests.log"; then
      echo "== GPU setup failed its tests: the benchmark key is made on the CPU"; export STARZK_SETUP_DEVICE=off
    fi
    "$root/bench/proof-bench.sh" "$build" "$out" || rc=$?
  fi
  if [ -n "${STARZK_POLICY_BENCH:-}" ]; then
    # shellcheck disable=SC2086 # the arguments as given
    ${STARZK_POLICY_BENCH_TIMEOUT:+timeout "$STARZK_POLICY_BENCH_TIMEOUT"} "$build/bin/starzk" bench \
      $STARZK_POLICY_BENCH --out "$out/policy-bench" --store "$out/policy-bench/store.jsonl" \
      > "$out/policy-bench.log" 2>&1 || rc=$?
    rm -rf "$out/policy-bench/inputs"  # the keys and witnesses: only results travel
    tail -20 "$out/policy-bench.log"
  fi
  if [ -n "${STARZK_REPLAY_CHECK:-}" ]; then
    STARZK_REPLAY_STEPS=record ${STARZK_REPLAY_TIMEOUT:+timeout "$STARZK_REPLAY_TIMEOUT"} \
      "$root/bench/replay-check.sh" "$build" - "$out/replay-check" $STARZK_REPLAY_CHECK \
      > "$out/replay-check.log" 2>&1 || rc=$?
    # a stopped record step leaves its keys and witnesses: only traces travel
    for d in "$out"/replay-check/k*/; do
      if [ -d "$d" ]; then find "$d" -mindepth 1 -maxdepth 1 ! -name 'real-*.json' ! -name 'replay-*.json' -exec rm -rf {} +; fi
    done
    # StarPU's bus and codelet models of the record step (the simulate step
    # reads the bus from OUT/replay-check/home): one archive, too deep to
    # travel as files
    if [ -d "$out/replay-check/home" ]; then
      tar czf "$out/replay-check/home.tgz" -C "$out/replay-check" home && rm -rf "$out/replay-check/home"
    fi
    tail -8 "$out/replay-check.log"
  fi
  if [ -n "$sector_pid" ]; then
    wait "$sector_pid" || rc=$?
    tail -30 "$out/sector-bench.log"
  elif [ "${STARZK_SECTOR:-0}" = 1 ]; then
    "$root/bench/sector-bench.sh" "$build" "$out" || rc=$?
  fi
  if [ -n "${STARZK_COLD_START:-}" ]; then
    "$root/bench/groth16/cold-start.sh" "$build" "$out/cold-start" "$STARZK_COLD_START" ${STARZK_COLD_START_ARGS:-} > "$out/cold-start.log" 2>&1 || rc=$?
    cat "$out/cold-start.log"
    rm -rf "$out/cold-start/k$STARZK_COLD_START"  # the generated key and witness
  fi
  if [ "${STARZK_SOAK:-0}" = 1 ]; then
    "$root/bench/soak.sh" "$build" "$out/soak" > "$out/soak.log" 2>&1 || rc=$?
    tail -6 "$out/soak.log"
    rm -rf "$out/soak/soak-job"
  fi
  # StarPU's calibrations of this run (bus and codelet models), for
  # simulation and for the next run's models (docs/policies.md).
  [ -d "$STARPU_HOME/.starpu/sampling" ] && cp -r "$STARPU_HOME/.starpu/sampling" "$out/starpu-sampling"
  echo "== done rc=$rc"
  (cd "$out" && ls | grep -v '^gpu-run.log$' | tar czf results.tgz -T - && ls | grep -v -e '^gpu-run.log$' -e '^results.tgz$' | xargs rm -rf)
  exit $rc
  ;;
*)
  echo "usage: scripts/gpu-run.sh prepare | run OUTDIR" >&2; exit 2 ;;
esac
