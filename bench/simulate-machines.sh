#!/usr/bin/env bash
# A recorded run on machines one does not have: the trace simulated (a
# StarPU built with SimGrid) under several policies on hosts of 1..N copies
# of the measured GPU, and on several such nodes.
#
#   bench/simulate-machines.sh SIM_BUILD_DIR TRACE OUT_DIR [GPUS...]
#
# GPUS: GPUs per node to simulate (default 1 2 4 8). Environment:
# STARZK_SIM_POLICIES (default "starzk eager dmdas"), STARZK_SIM_NODES
# (default "1 4"), STARZK_SIM_BUS (folder of the measured host's bus files,
# default bench/perfmodels/h200/bus) and STARZK_SIM_HOST (its host name,
# default vm).
#
# Per GPU count, bench/perfmodels/make-platform.py writes the bus files of
# a host with that many copies of the measured GPU (its assumptions: each
# GPU its own PCIe link of the measured bandwidth, the host's memory never
# the bottleneck). The task times are the trace's own (--models-from-trace:
# per model, kind and footprint, the mean of the recorded times). Nodes:
# `prove --mpi` runs partition p on rank p mod N, each node with its own key
# and no written data shared, so N nodes are N independent simulations of
# one node's share (`trace replay --ranks N --rank R`) and the run's span is
# the longest share's (the proofs' gathering, 192 bytes each, left out).
# A trace without buffers (edges only) is simulated without transfers:
# what a task moved itself is in its recorded time, nothing else moves.
#
# Writes OUT_DIR/simulate-machines.csv: policy, GPUs per node, nodes,
# partitions of the longest share, simulated span, and the span as a
# speedup over the same policy on one GPU of one node.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sim=${1:?SimGrid build dir}
trace=${2:?trace JSON}
out=${3:?output dir}
shift 3
gpus=("$@")
[ ${#gpus[@]} -gt 0 ] || gpus=(1 2 4 8)
policies=(${STARZK_SIM_POLICIES:-starzk eager dmdas})
nodes=(${STARZK_SIM_NODES:-1 4})
bus=${STARZK_SIM_BUS:-$root/bench/perfmodels/h200/bus}
from=${STARZK_SIM_HOST:-vm}
starzk="$sim/bin/starzk"
[ -x "$starzk" ] || { echo "simulate-machines: no $starzk (a SimGrid build: docs/install.md)" >&2; exit 2; }
[ -f "$trace" ] || { echo "simulate-machines: no trace $trace" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
dir=$(mktemp -d "$out/sim.XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bus"
export STARPU_PERF_MODEL_DIR=$dir STARPU_SILENT=1 STARPU_HOME=$dir/home

field() { python3 -c 'import json,sys; j=json.loads(sys.stdin.read().strip().splitlines()[-1]); print(eval(sys.argv[1]))' "$1"; }

csv="$out/simulate-machines.csv"
echo "policy,gpus,nodes,partitions,span_s,speedup" > "$csv"
for g in "${gpus[@]}"; do
  host=sim${g}gpu
  python3 "$root/bench/perfmodels/make-platform.py" "$bus" "$from" "$g" "$host" "$dir/bus" > /dev/null
  # The trace's times as this host's models.
  STARPU_HOSTNAME=$host "$starzk" trace replay "$trace" --models-only 2> "$dir/models.log" \
    || { cat "$dir/models.log" >&2; exit 1; }
done
declare -A base
for p in "${policies[@]}"; do
  for g in "${gpus[@]}"; do
    for n in "${nodes[@]}"; do
      span=0 parts=0
      for r in $(seq 0 $((n - 1))); do
        j=$(STARPU_HOSTNAME=sim${g}gpu "$starzk" trace replay "$trace" --policy "$p" --ranks "$n" --rank "$r" \
              --json 2> "$dir/run.log") || {
          grep -q "no partition of the trace falls to it" "$dir/run.log" && continue
          cat "$dir/run.log" >&2; exit 1; }
        s=$(echo "$j" | field 'j["replay"]["span_s"]')
        k=$(echo "$j" | field 'j["partitions"]')
        if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)" "$s" "$span"; then
          span=$s parts=$k
        fi
      done
      [ -n "${base[$p]:-}" ] || base[$p]=$span
      speed=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "${base[$p]}" "$span")
      printf '%s,%s,%s,%s,%.3f,%s\n' "$p" "$g" "$n" "$parts" "$span" "$speed" | tee -a "$csv"
    done
  done
done
