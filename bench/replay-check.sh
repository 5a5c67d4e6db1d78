#!/usr/bin/env bash
# How far a replay, and a simulation, of a recorded run can be trusted:
# record real batches under several policies, then replay each trace
# (`starzk trace replay`) on this machine and, with a StarPU built with
# SimGrid, in simulation, and compare the spans.
#
#   bench/replay-check.sh BUILD_DIR SIM_BUILD_DIR OUT_DIR [SIZES...]
#
# Environment: STARZK_REPLAY_POLICIES (default "starzk eager dmdas"),
# STARZK_REPLAY_PARTITIONS (proofs per batch, default 8), STARZK_REPLAY_GPUS
# (default: every GPU), STARZK_REPLAY_WARMUP (batches run first to calibrate
# the models, default 2), STARZK_REPLAY_WARMUP_SKIP (policies that run no
# warm-up batch, e.g. "eager lws", which place no task by the models: at
# 2^24 their batches put MSMs on single cores and take minutes),
# STARZK_REPLAY_CPU_WARMUP (batches run first on
# the CPU workers alone, --gpus 0, default 0: see below),
# STARZK_REPLAY_STEPS (default "record simulate"), STARZK_REPLAY_SUBMIT
# (the replays' --submit: asap, the default, submits each graph at once;
# recorded, each task at its recorded submission time).
# SIM_BUILD_DIR "-" skips the simulations. The steps may run on two
# machines: `record` where the GPUs are (it also replays there and writes
# record.csv), `simulate` later on any machine with the SimGrid build,
# from OUT_DIR's traces and the bus files StarPU wrote in OUT_DIR/home
# (the host name in OUT_DIR/host).
#
# Per size and policy: STARZK_REPLAY_WARMUP batches to calibrate the models
# (StarPU's history models in OUT_DIR/home, so that model-driven policies
# decide with calibrated models: StarPU trusts an entry after
# STARPU_CALIBRATE_MINIMUM samples, 10 by default), then the recorded batch
# (real-POLICY.json). The warm-up batches run with STARPU_CALIBRATE=1:
# without it StarPU records a model's measurements only in a run where a
# policy found the model short, so batches under eager or starzk would
# add nothing. On a GPU host a model-driven policy measures every codelet
# on the CPU workers too before it trusts the models, sending each short
# task to a core while the GPU waits; at 2^22 and above that is minutes
# per batch. STARZK_REPLAY_CPU_WARMUP=N runs N batches per size on the CPU
# workers alone first (eager, --gpus 0: all tasks there, side by side), so
# the CPU entries hold their samples before any policy runs (one batch of
# 10 partitions gives each entry 10); or install calibrated models instead
# (STARZK_CALIBRATED_MODELS=bench/perfmodels/h100, which starzk copies into
# OUT_DIR/home on its first run, with STARPU_CALIBRATE_MINIMUM at or below
# their CPU samples: bench/perfmodels/README.md). Progress lines with the
# time go to stderr. Then
#   replay_s     the trace replayed on this machine under the same policy
#                (bodies wait the recorded times);
#   sim_s        the trace simulated under the same policy, the models
#                written from the trace itself (--models-only) and the
#                bus StarPU calibrated on this machine: what the simulation
#                adds (transfers, scheduling) with exact task times;
#   sim_cross_s  the starzk trace simulated under POLICY: a prediction of
#                POLICY's run from another policy's run, as a researcher
#                would make it for a policy not yet run.
# Writes OUT_DIR/replay-check.csv; every span also as a ratio to real_s.
# Where the recorded host had a GPU, the simulate step then sweeps each
# size's first policy's trace over more GPUs and nodes
# (bench/simulate-machines.sh, on the recorded host's bus; GPU counts from
# STARZK_REPLAY_MACHINES, default "1 2 4 8", "" for none) into
# OUT_DIR/kK/machines/simulate-machines.csv.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:?build dir}
sim=${2:?SimGrid build dir or -}
out=${3:?output dir}
shift 3
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(12 14)
policies=(${STARZK_REPLAY_POLICIES:-starzk eager dmdas})
parts=${STARZK_REPLAY_PARTITIONS:-8}
warmup=${STARZK_REPLAY_WARMUP:-2}
submit=${STARZK_REPLAY_SUBMIT:-asap}
starzk="$build/bin/starzk"
mkdir -p "$out"
out=$(cd "$out" && pwd)
export STARPU_HOME="$out/home" STARPU_SILENT=1
gpus=()
[ -z "${STARZK_REPLAY_GPUS:-}" ] || gpus=(--gpus "$STARZK_REPLAY_GPUS")
host=${STARPU_HOSTNAME:-$(hostname -s)}

note() { echo "replay-check: $(date -u +%T) $*" >&2; }
span() { python3 -c 'import json,sys; print("%.4f" % json.load(sys.stdin)[sys.argv[1]]["span_s"])' "$1"; }

# simulate TRACE POLICY MODELS_FROM: the simulated span, the models written
# from MODELS_FROM's trace into a fresh folder beside this host's bus files.
simulate() {
  local trace=$1 policy=$2 from=$3 dir
  dir=$(mktemp -d "$out/sim.XXXXXX")
  mkdir -p "$dir/bus"
  cp "$STARPU_HOME/.starpu/sampling/bus/$host".* "$dir/bus/"
  STARPU_PERF_MODEL_DIR=$dir STARPU_HOSTNAME=$host "$sim/bin/starzk" trace replay "$from" --models-only 2> "$dir/log"
  STARPU_PERF_MODEL_DIR=$dir STARPU_HOSTNAME=$host "$sim/bin/starzk" trace replay "$trace" \
    --policy "$policy" --submit "$submit" --json 2>> "$dir/log" | tail -1 | span replay
  rm -rf "$dir"
}

steps=" ${STARZK_REPLAY_STEPS:-record simulate} "
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.3f' % (a/b))" "$1" "$2"; }

if [[ $steps == *" record "* ]]; then
  echo "$host" > "$out/host"
  rec="$out/record.csv"
  echo "log2,policy,tasks,real_s,replay_s" > "$rec"
  for k in "${sizes[@]}"; do
    d="$out/k$k"
    mkdir -p "$d"
    note "2^$k: inputs"
    [ -f "$d/jobs.toml" ] || "$starzk" gen --log2 "$k" --partitions "$parts" --out "$d" > /dev/null 2>&1
    for i in $(seq "${STARZK_REPLAY_CPU_WARMUP:-0}"); do
      note "2^$k: CPU warm-up batch $i"
      STARPU_CALIBRATE=1 "$starzk" prove --manifest "$d/jobs.toml" --policy eager --gpus 0 --fresh --quiet > /dev/null
    done
    for p in "${policies[@]}"; do
      n=$warmup
      [[ " ${STARZK_REPLAY_WARMUP_SKIP:-} " == *" $p "* ]] && n=0
      for i in $(seq "$n"); do
        note "2^$k: $p warm-up batch $i"
        STARPU_CALIBRATE=1 "$starzk" prove --manifest "$d/jobs.toml" --policy "$p" "${gpus[@]}" --fresh --quiet > /dev/null
      done
      note "2^$k: $p recorded batch"
      "$starzk" prove --manifest "$d/jobs.toml" --policy "$p" "${gpus[@]}" --fresh --quiet \
        --trace "$d/real-$p.json" > /dev/null
      j=$("$starzk" trace replay "$d/real-$p.json" --policy "$p" "${gpus[@]}" --submit "$submit" --json | tail -1)
      echo "$j" > "$d/replay-$p.json"
      tasks=$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tasks"])')
      echo "$k,$p,$tasks,$(echo "$j" | span recorded),$(echo "$j" | span replay)" | tee -a "$rec"
    done
  done
  for k in "${sizes[@]}"; do  # the traces and replays stay; keys, witnesses and proofs go
    find "$out/k$k" -mindepth 1 -maxdepth 1 ! -name 'real-*.json' ! -name 'replay-*.json' -exec rm -rf {} +
  done
fi

if [[ $steps == *" simulate "* ]] && [ "$sim" != - ]; then
  host=$(cat "$out/host")
  # scripts/gpu-run.sh brings the record step's StarPU folder back as an archive
  [ -d "$out/home" ] || [ ! -f "$out/home.tgz" ] || tar xzf "$out/home.tgz" -C "$out"
  csv="$out/replay-check.csv"
  echo "log2,policy,tasks,real_s,replay_s,sim_s,sim_cross_s,replay_ratio,sim_ratio,sim_cross_ratio" > "$csv"
  tail -n +2 "$out/record.csv" | while IFS=, read -r k p tasks real rep; do
    d="$out/k$k"
    s=$(simulate "$d/real-$p.json" "$p" "$d/real-$p.json")
    c=$(simulate "$d/real-${policies[0]}.json" "$p" "$d/real-${policies[0]}.json")
    echo "$k,$p,$tasks,$real,$rep,$s,$c,$(ratio "$rep" "$real"),$(ratio "$s" "$real"),$(ratio "$c" "$real")" | tee -a "$csv"
  done
  machines=(${STARZK_REPLAY_MACHINES-1 2 4 8})
  gpus_here=$(awk '/Number of CUDA devices/ {print $1}' "$STARPU_HOME/.starpu/sampling/bus/$host.config" 2>/dev/null || echo 0)
  if [ ${#machines[@]} -gt 0 ] && [ "${gpus_here:-0}" -gt 0 ]; then
    for k in $(tail -n +2 "$out/record.csv" | cut -d, -f1 | sort -un); do
      STARZK_SIM_BUS="$STARPU_HOME/.starpu/sampling/bus" STARZK_SIM_HOST=$host \
        "$root/bench/simulate-machines.sh" "$sim" "$out/k$k/real-${policies[0]}.json" "$out/k$k/machines" "${machines[@]}"
    done
  fi
fi
