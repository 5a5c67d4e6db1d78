#!/usr/bin/env bash
# Whole proofs on a GPU machine through the DAG (issue: GPU codelets): the
# `starzk bench` sweep at 2^k on the Filecoin-shaped circuit, our policy
# against StarPU's dmdas and against one proof at a time, then the
# calibrated performance models and the traces.
#
#   bench/proof-bench.sh BUILD_DIR OUT_DIR
#
# STARZK_PROOF_LOG2 (default 24), STARZK_PROOF_JOBS (4),
# STARZK_PROOF_PARTITIONS (10), STARZK_PROOF_POLICIES (starzk,dmdas),
# STARZK_PROOF_NGPU (unset: every GPU; e.g. "1 2" runs the sweep once per
# count, for the scaling figure: the counts after the first run only
# STARZK_PROOF_SCALING_POLICIES, default starzk, without the one-at-a-time
# row). STARZK_PROOF_BASELINE=0 drops the one-at-a-time row;
# STARZK_PROOF_RUN_TIMEOUT=S stops any run's proving after S seconds (its
# row then reports the proofs finished by then, marked FAILED: stopped). The inputs (circuit, witnesses, development key)
# are made once;
# STARZK_SETUP_DEVICE=off makes the key on the CPU. Writes OUT_DIR/proof-bench-g<N>.csv /
# .txt, OUT_DIR/traces-g<N>/ and OUT_DIR/perfmodels/ (StarPU's history
# files of the starzk codelets, to keep in bench/perfmodels/<machine>/).
set -uo pipefail
build=${1:?usage: proof-bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: proof-bench.sh BUILD_DIR OUT_DIR}
exe="$build/bin/starzk"
[ -x "$exe" ] || { echo "proof-bench: $exe not built" >&2; exit 1; }
k=${STARZK_PROOF_LOG2:-24}
jobs=${STARZK_PROOF_JOBS:-4}
parts=${STARZK_PROOF_PARTITIONS:-10}
policies=${STARZK_PROOF_POLICIES:-starzk,dmdas}
inputs=${STARZK_PROOF_INPUTS:-/tmp/starzk-proof-bench}
mkdir -p "$out"
rc=0
first=1
for g in ${STARZK_PROOF_NGPU:-all}; do
  ngpu=(); [ "$g" != all ] && ngpu=(--ngpu "$g")
  if [ $first = 1 ]; then pol=$policies; base=(--baseline starzk); else pol=${STARZK_PROOF_SCALING_POLICIES:-starzk}; base=(--no-baseline); fi
  [ "${STARZK_PROOF_BASELINE:-1}" = 0 ] && base=(--no-baseline)
  [ -n "${STARZK_PROOF_RUN_TIMEOUT:-}" ] && base+=(--run-timeout "$STARZK_PROOF_RUN_TIMEOUT")
  first=0
  echo "== starzk bench k=$k jobs=$jobs partitions=$parts policies=$pol gpus=$g"
  t0=$(date +%s)
  rm -rf "$inputs/run/traces" "$inputs/run/bench.csv"
  "$exe" bench --policies "$pol" --concurrency "$jobs" --partitions "$parts" --log2 "$k" --jobs "$jobs" \
    "${base[@]}" "${ngpu[@]}" --out "$inputs/run" 2>&1 | tee "$out/proof-bench-g$g.txt" || rc=1
  cp -f "$inputs/run/bench.csv" "$out/proof-bench-g$g.csv" 2>/dev/null || rc=1
  mkdir -p "$out/traces-g$g"
  cp -f "$inputs/run"/traces/*.json "$out/traces-g$g/" 2>/dev/null || true
  echo "== gpus=$g took $(( $(date +%s) - t0 )) s"
done
models="${STARPU_PERF_MODEL_DIR:-${STARPU_HOME:-$HOME}/.starpu/sampling}/codelets/45"
mkdir -p "$out/perfmodels"
cp -f "$models"/starzk_* "$out/perfmodels/" 2>/dev/null || echo "proof-bench: no models in $models"
exit $rc
