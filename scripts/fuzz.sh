#!/usr/bin/env bash
# Fuzz every reader (tests/fuzz): configure a clang build with libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer (STARZK_FUZZ=ON) in
# build-fuzz (or $STARZK_FUZZ_BUILD_DIR), build the harnesses, write the
# seed corpora from tests/fixtures, then run each harness.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#     SECONDS  per harness at most (default 10: what scripts/test.sh runs;
#              0: no time limit)
#     TARGET   zkey r1cs ... (default: all, tests/fuzz/CMakeLists.txt)
#   STARZK_FUZZ_RUNS  stop a harness after this many executions (default:
#              no limit; STARZK_FUZZ_RUNS=1000000 scripts/fuzz.sh 0 runs
#              10^6 executions of each)
#   STARZK_FUZZ_JOBS  harnesses run at once (default: the number of cores)
#
# Each harness keeps its corpus in BUILD/corpus/<target> (seeds included),
# so later runs start where earlier ones stopped, and writes its log to
# BUILD/logs/<target>.log. Every allocation above 512 MiB counts as a
# crash (-malloc_limit_mb): readers must bound sizes before allocating.
# A crash leaves its input in BUILD/crashes/<target>/ and fails the script.
# The last line per harness gives the executions done.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${STARZK_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-10}
shift || true
jobs=${STARZK_FUZZ_JOBS:-$(nproc)}
runs=${STARZK_FUZZ_RUNS:-}

command -v clang++ >/dev/null || { echo "[fuzz] clang++ not found (scripts/setup.sh installs clang)" >&2; exit 1; }
if [ ! -f "$build/build.ninja" ]; then
  mkdir -p "$build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSTARZK_FUZZ=ON \
    -DSTARZK_CUDA=OFF -DSTARZK_TESTS=OFF -DSTARZK_BENCH=OFF >"$build/configure.log" 2>&1 \
    || { cat "$build/configure.log" >&2; echo "[fuzz] configure failed" >&2; exit 1; }
fi
echo "[fuzz] building the harnesses in $build"
cmake --build "$build" --target starzk_fuzz -j"$(nproc)"

if [ $# -gt 0 ]; then targets=("$@"); else
  read -r -a targets <<<"$(sed -n '/^set(STARZK_FUZZ_TARGETS/,/)/p' "$root/tests/fuzz/CMakeLists.txt" \
    | tr -d '()' | sed 's/set\s*STARZK_FUZZ_TARGETS//' | tr '\n' ' ')"
fi
"$build/fuzz/fuzz_seeds" "$build/seeds"
mkdir -p "$build/logs" "$build/scratch"
[ -d /dev/shm ] && scratch=$(mktemp -d /dev/shm/starzk-fuzz.XXXXXX) || scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

run_one() {
  local t=$1 corpus="$build/corpus/$1" crashes="$build/crashes/$1"
  mkdir -p "$corpus" "$crashes"
  cp -n "$build/seeds/$t"/* "$corpus"/ 2>/dev/null || true
  local limit=()
  [ "$seconds" != 0 ] && limit+=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit+=(-runs="$runs")
  if TMPDIR="$scratch" "$build/fuzz/fuzz_$t" ${limit[@]+"${limit[@]}"} -malloc_limit_mb=512 -rss_limit_mb=2048 \
      -timeout=30 -print_final_stats=1 -artifact_prefix="$crashes/" "$corpus" >"$build/logs/$t.log" 2>&1; then
    echo "[fuzz] $t: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$build/logs/$t.log" | awk '{print $2}') executions, no crash"
  else
    echo "[fuzz] $t: CRASH (log: $build/logs/$t.log, input in $crashes/)" >&2
    tail -n 30 "$build/logs/$t.log" >&2
    return 1
  fi
}

failed=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}" || failed=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
[ $failed = 0 ] && echo "[fuzz] ${#targets[@]} harnesses, no crash" || { echo "[fuzz] crashes found" >&2; exit 1; }
