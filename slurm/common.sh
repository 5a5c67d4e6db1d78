# shellcheck shell=bash
# common.sh: environment set-up shared by the slurm/*.sbatch scripts (sourced,
# not run). It turns a Slurm allocation into a StarPU configuration:
#
#   workers     STARPU_NCUDA = GPUs of the allocation on this node (from
#               CUDA_VISIBLE_DEVICES, which Slurm sets for --gres=gpu:N, else
#               SLURM_GPUS_ON_NODE); STARPU_NCPU = SLURM_CPUS_ON_NODE minus one
#               core per GPU (each CUDA worker is driven by a CPU thread) and,
#               for StarPU-MPI, one more for the MPI progress thread. At least 1.
#               With several ranks on a node (srun --ntasks-per-node=R), each
#               rank takes its share: SLURM_CPUS_PER_TASK cores (else 1/R of
#               the node's) and the R-th slice of the node's GPUs, by
#               SLURM_LOCALID (CUDA_VISIBLE_DEVICES narrowed to it).
#               A job that got no GPU on a node that has some (--gres=none,
#               even under --exclusive) sees none: CUDA_VISIBLE_DEVICES is
#               set empty, so starzk never uses a GPU it was not given.
#               STARZK_NCPU / STARZK_NCUDA override the computed values.
#   requeue     Logs are appended per attempt (#SBATCH --open-mode=append) and
#               each attempt is numbered (SLURM_RESTART_COUNT). A batch
#               rerun resumes from its journal (docs/reliability.md). The
#               time-limit signal (--signal=B:USR1@S) is passed on to a
#               batch (through srun to every rank, for prove-mpi): starzk
#               submits no more partitions, finishes those in
#               flight, writes MANIFEST.partial and exits 5; the script then
#               requeues itself, and the next attempt proves the rest. A
#               single proof is requeued at once (it is lost; rerun whole).
#   STARPU_HOME on node-local scratch: ${STARZK_SCRATCH:-${TMPDIR:-/tmp}}/starzk-JOB[-rank],
#               removed at the end (STARZK_KEEP_SCRATCH=1 keeps it).
#   models      StarPU writes calibrated performance models under
#               STARPU_PERF_MODEL_DIR. The shared folder (STARZK_PERF_MODELS, or
#               the STARPU_PERF_MODEL_DIR given at submission) only seeds a
#               node-local copy; at the end the files this run created or
#               updated are published back one by one, each copied to a
#               temporary name in the target folder and renamed over the old
#               one (atomic on POSIX filesystems, NFS and Lustre included), under
#               flock when available. Readers never see half a file and two
#               jobs never interleave writes. STARZK_PUBLISH_MODELS=0 disables
#               publishing (read-only shared models).
#               StarPU names codelet models after the host: on a cluster of
#               identical nodes set STARZK_MODEL_HOSTNAME (it becomes
#               STARPU_HOSTNAME) so that every node reads one calibration.
#   binary      STARZK_BIN, else `starzk` on PATH, else STARZK_ROOT/build/bin/starzk.
#
# The functions print what they decide, so the job log says how StarPU was set up.

# starzk_log MSG...: one line on stdout, prefixed with host and time.
starzk_log() { printf '[starzk-slurm %s %s] %s\n' "$(hostname -s)" "$(date +%T)" "$*"; }

# starzk_die MSG...: an error on stderr, then exit 1 (the job ends FAILED).
starzk_die() { printf '[starzk-slurm %s] error: %s\n' "$(hostname -s)" "$*" >&2; exit 1; }

# starzk_find_bin: sets and checks STARZK_BIN.
starzk_find_bin() {
  if [ -z "${STARZK_BIN:-}" ]; then
    if command -v starzk >/dev/null 2>&1; then STARZK_BIN=$(command -v starzk)
    elif [ -n "${STARZK_ROOT:-}" ] && [ -x "$STARZK_ROOT/build/bin/starzk" ]; then STARZK_BIN=$STARZK_ROOT/build/bin/starzk
    else starzk_die "no starzk binary: set STARZK_BIN (or STARZK_ROOT, or put starzk on PATH)"
    fi
  fi
  [ -x "$STARZK_BIN" ] || starzk_die "STARZK_BIN=$STARZK_BIN is not an executable file"
  export STARZK_BIN
}

# starzk_gpu_count: GPUs allocated on this node, printed.
starzk_gpu_count() {
  local cvd=${CUDA_VISIBLE_DEVICES:-}
  if [ -n "$cvd" ] && [ "$cvd" != NoDevFiles ]; then
    local ids
    IFS=, read -r -a ids <<<"$cvd"
    echo "${#ids[@]}"
  elif [ -n "${SLURM_GPUS_ON_NODE:-}" ]; then
    echo "${SLURM_GPUS_ON_NODE}"
  else
    echo 0
  fi
}

# starzk_cpu_count: CPUs allocated on this node, printed (Slurm's view first).
starzk_cpu_count() {
  if [ -n "${SLURM_CPUS_ON_NODE:-}" ]; then echo "$SLURM_CPUS_ON_NODE"
  elif [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then echo "$SLURM_CPUS_PER_TASK"
  else nproc
  fi
}

# starzk_node_has_gpus: whether Slurm lists GPUs (GRES gpu) on this node.
starzk_node_has_gpus() {
  scontrol show node "$(hostname -s)" 2>/dev/null | grep -q 'Gres=[^ ]*gpu'
}

# starzk_rank_share: with R ranks on this node, narrow CUDA_VISIBLE_DEVICES
# to this rank's slice (SLURM_LOCALID) and print its CPU count.
starzk_rank_share() {
  local ranks=$1 cpus=$2 cvd=${CUDA_VISIBLE_DEVICES:-} local_id=${SLURM_LOCALID:-0}
  if [ -n "$cvd" ] && [ "$cvd" != NoDevFiles ]; then
    local ids per first
    IFS=, read -r -a ids <<<"$cvd"
    per=$(( ${#ids[@]} / ranks ))
    if [ "$per" -ge 1 ]; then
      first=$((local_id * per))
      CUDA_VISIBLE_DEVICES=$(IFS=,; echo "${ids[*]:$first:$per}")
    else  # fewer GPUs than ranks: ranks share them round-robin
      CUDA_VISIBLE_DEVICES=${ids[$((local_id % ${#ids[@]}))]}
    fi
    export CUDA_VISIBLE_DEVICES
  fi
  if [ -n "${SLURM_CPUS_PER_TASK:-}" ]; then echo "$SLURM_CPUS_PER_TASK"; else echo $((cpus / ranks)); fi
}

# starzk_starpu_workers [mpi]: exports STARPU_NCPU and STARPU_NCUDA.
starzk_starpu_workers() {
  local cpus gpus ncpu reserve ranks
  if [ -z "${CUDA_VISIBLE_DEVICES:-}" ] && [ -z "${SLURM_GPUS_ON_NODE:-}" ] && [ -z "${SLURM_JOB_GPUS:-}" ] \
     && [ "${STARZK_NCUDA:-}" = "" ] && starzk_node_has_gpus; then
    export CUDA_VISIBLE_DEVICES=
    starzk_log "no GPU allocated on a node that has some: CUDA_VISIBLE_DEVICES set empty (ask with --gres=gpu:N)"
  fi
  cpus=$(starzk_cpu_count)
  ranks=${SLURM_STEP_TASKS_PER_NODE:-1}
  ranks=${ranks%%(*}   # "2(x3)": 2 per node on 3 nodes
  ranks=${ranks%%,*}
  [[ $ranks =~ ^[0-9]+$ ]] && [ "$ranks" -ge 1 ] || ranks=1
  if [ "$ranks" -gt 1 ]; then
    cpus=$(starzk_rank_share "$ranks" "$cpus")
    starzk_log "rank ${SLURM_LOCALID:-0} of $ranks on this node: $cpus CPU(s), GPUs ${CUDA_VISIBLE_DEVICES:-none}"
  fi
  gpus=$(starzk_gpu_count)
  reserve=$gpus
  [ "${1:-}" = mpi ] && reserve=$((reserve + 1))
  ncpu=$((cpus - reserve))
  [ "$ncpu" -ge 1 ] || ncpu=1
  export STARPU_NCPU=${STARZK_NCPU:-$ncpu}
  export STARPU_NCUDA=${STARZK_NCUDA:-$gpus}
  starzk_log "allocation: $cpus CPU(s), $gpus GPU(s) (CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-unset})" \
             "-> STARPU_NCPU=$STARPU_NCPU STARPU_NCUDA=$STARPU_NCUDA"
}

# starzk_scratch_setup [TAG]: node-local STARPU_HOME seeded with the shared models.
starzk_scratch_setup() {
  local tag=${1:-}
  local base=${STARZK_SCRATCH:-${TMPDIR:-/tmp}}
  STARZK_SCRATCH_DIR="$base/starzk-${SLURM_JOB_ID:-$$}${tag:+-$tag}"
  mkdir -p "$STARZK_SCRATCH_DIR" || starzk_die "cannot create scratch folder $STARZK_SCRATCH_DIR"
  chmod 700 "$STARZK_SCRATCH_DIR"
  export STARZK_SCRATCH_DIR
  export STARPU_HOME="$STARZK_SCRATCH_DIR/starpu-home"
  # Resolve the shared model folder once (the batch step); srun'd ranks inherit
  # STARZK_PERF_MODELS and must not mistake the batch node's local copy for it.
  if [ -z "${STARZK_MODELS_RESOLVED:-}" ] && [ -z "${STARZK_PERF_MODELS:-}" ]; then
    STARZK_PERF_MODELS=${STARPU_PERF_MODEL_DIR:-}
  fi
  export STARZK_PERF_MODELS=${STARZK_PERF_MODELS:-} STARZK_MODELS_RESOLVED=1
  export STARPU_PERF_MODEL_DIR="$STARPU_HOME/.starpu/sampling"
  mkdir -p "$STARPU_PERF_MODEL_DIR"
  [ -n "${STARZK_MODEL_HOSTNAME:-}" ] && export STARPU_HOSTNAME=$STARZK_MODEL_HOSTNAME
  local n=0
  if [ -n "$STARZK_PERF_MODELS" ]; then
    if [ -d "$STARZK_PERF_MODELS" ]; then
      cp -R -p "$STARZK_PERF_MODELS/." "$STARPU_PERF_MODEL_DIR/" 2>/dev/null \
        || starzk_log "warning: could not copy every model from $STARZK_PERF_MODELS"
      rm -f "$STARPU_PERF_MODEL_DIR/.starzk-models.lock"
      n=$(find "$STARPU_PERF_MODEL_DIR" -type f | wc -l)
    else
      starzk_log "shared model folder $STARZK_PERF_MODELS does not exist yet: starting uncalibrated"
    fi
  fi
  # Anything newer than this stamp was written by this run.
  touch "$STARZK_SCRATCH_DIR/.seeded"
  starzk_log "STARPU_HOME=$STARPU_HOME; seeded $n model file(s) from ${STARZK_PERF_MODELS:-nowhere}"
}

# starzk_models_publish: copy models written by this run back to the shared folder.
starzk_models_publish() {
  [ -n "${STARZK_PERF_MODELS:-}" ] && [ -n "${STARZK_SCRATCH_DIR:-}" ] || return 0
  [ "${STARZK_PUBLISH_MODELS:-1}" = 1 ] || return 0
  [ -f "$STARZK_SCRATCH_DIR/.seeded" ] || return 0
  mkdir -p "$STARZK_PERF_MODELS" 2>/dev/null || { starzk_log "warning: cannot create $STARZK_PERF_MODELS"; return 0; }
  local files n=0 f rel dst tmp
  files=$(cd "$STARPU_PERF_MODEL_DIR" && find . -type f -newer "$STARZK_SCRATCH_DIR/.seeded" | sort)
  [ -n "$files" ] || return 0
  (
    if command -v flock >/dev/null 2>&1; then
      if ! { exec 9>>"$STARZK_PERF_MODELS/.starzk-models.lock" && flock -w 60 9; }; then
        starzk_log "warning: no lock on $STARZK_PERF_MODELS; publishing by rename alone"
      fi
    fi
    while IFS= read -r rel; do
      f="$STARPU_PERF_MODEL_DIR/${rel#./}"
      dst="$STARZK_PERF_MODELS/${rel#./}"
      tmp="$(dirname "$dst")/.$(basename "$dst").tmp.${SLURM_JOB_ID:-$$}.$(hostname -s).$$"
      if mkdir -p "$(dirname "$dst")" && cp -p "$f" "$tmp" && mv -f "$tmp" "$dst"; then
        n=$((n + 1))
      else
        rm -f "$tmp"
        starzk_log "warning: could not publish $rel"
      fi
    done <<<"$files"
    starzk_log "published $n model file(s) to $STARZK_PERF_MODELS"
  )
}

# starzk_finish: EXIT trap of the scripts: publish models, remove scratch.
# It keeps the script's exit status (it never calls exit).
starzk_finish() {
  starzk_models_publish || true
  if [ -n "${STARZK_SCRATCH_DIR:-}" ] && [ "${STARZK_KEEP_SCRATCH:-0}" != 1 ]; then
    rm -rf "$STARZK_SCRATCH_DIR"
  fi
}

# starzk_job_banner: one line naming the job and the attempt, for the log.
starzk_job_banner() {
  starzk_log "job ${SLURM_JOB_ID:-none}${SLURM_ARRAY_TASK_ID:+ task $SLURM_ARRAY_TASK_ID}," \
             "attempt $(( ${SLURM_RESTART_COUNT:-0} + 1 ))" \
             "on ${SLURM_JOB_NODELIST:-$(hostname -s)} (partition ${SLURM_JOB_PARTITION:-?}," \
             "account ${SLURM_JOB_ACCOUNT:-?}); starzk=$STARZK_BIN"
}

# ---- the prove command ----------------------------------------------------------
# Job inputs, from the environment (or, for prove-array, from one line of the
# MANIFESTS list):
#   MANIFEST   a batch manifest (jobs.toml): `starzk prove --manifest`; with
#              POLICY (scheduling policy name) and TRACE (trace JSON path)
#   ZKEY | PARAMS, CIRCUIT, WTNS   one proof instead (snarkjs key, or a
#              bellman/Filecoin .params with its circuit); written to OUT_DIR
#              as proof.json + public.json (ZKEY) or proof.bin + public.json
#   VKEY       verification key: check OUT_DIR/proof.json after proving
#   STARZK_PROVE_ARGS   extra words appended to `starzk prove`

# starzk_prove_command OUT_DIR [MPI]: fills the array STARZK_CMD.
starzk_prove_command() {
  local out=$1 extra
  STARZK_CMD=("$STARZK_BIN" prove)
  if [ -n "${MANIFEST:-}" ]; then
    [ -r "$MANIFEST" ] || starzk_die "MANIFEST=$MANIFEST is not a readable file"
    STARZK_CMD+=(--manifest "$MANIFEST")
    [ -n "${POLICY:-}" ] && STARZK_CMD+=(--policy "$POLICY")
    [ -n "${TRACE:-}" ] && STARZK_CMD+=(--trace "$TRACE")
  else
    [ -n "${WTNS:-}" ] || starzk_die "nothing to prove: set MANIFEST=jobs.toml, or WTNS with ZKEY (or PARAMS and CIRCUIT)"
    [ -r "$WTNS" ] || starzk_die "WTNS=$WTNS is not a readable file"
    if [ -n "${ZKEY:-}" ]; then
      [ -r "$ZKEY" ] || starzk_die "ZKEY=$ZKEY is not a readable file"
      STARZK_CMD+=(--zkey "$ZKEY" --proof "$out/proof.json")
      [ -n "${CIRCUIT:-}" ] && STARZK_CMD+=(--r1cs "$CIRCUIT")
    elif [ -n "${PARAMS:-}" ]; then
      [ -r "$PARAMS" ] || starzk_die "PARAMS=$PARAMS is not a readable file"
      [ -n "${CIRCUIT:-}" ] || starzk_die "PARAMS needs CIRCUIT (the .r1cs of the circuit)"
      STARZK_CMD+=(--params "$PARAMS" --circuit "$CIRCUIT" --out "$out/proof.bin")
    else
      starzk_die "WTNS given without a key: set ZKEY (snarkjs) or PARAMS and CIRCUIT (bellman/Filecoin)"
    fi
    STARZK_CMD+=(--wtns "$WTNS" --public "$out/public.json")
  fi
  [ "${2:-}" = mpi ] && STARZK_CMD+=(--mpi)
  read -r -a extra <<<"${STARZK_PROVE_ARGS:-}"
  STARZK_CMD+=("${extra[@]}")
  return 0
}

# starzk_requeue_self: requeue this job (or array task); Slurm then ends
# this attempt, and the next one resumes the batch from its journal.
# Returns non-zero when Slurm refused (no --requeue, or not under Slurm).
starzk_requeue_self() {
  local id=${SLURM_JOB_ID:-}
  [ -n "${SLURM_ARRAY_JOB_ID:-}" ] && id=${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}
  starzk_log "requeueing $id; the next attempt resumes from the batch journal"
  if [ -n "$id" ] && scontrol requeue "$id"; then return 0; fi
  starzk_log "warning: scontrol requeue $id failed (was the job submitted with --requeue?)"
  return 1
}

# starzk_on_time_limit: the USR1 trap (#SBATCH --signal=B:USR1@SECONDS).
# A batch gets the signal (starzk stops submitting and finishes the
# partitions in flight; starzk_prove requeues once it has exited); a single
# proof is requeued at once.
starzk_on_time_limit() {
  if [ -n "${MANIFEST:-}" ] && [ -n "${STARZK_PID:-}" ]; then
    starzk_log "time limit near (SIGUSR1): starzk finishes the partitions in flight and stops"
    kill -USR1 "$STARZK_PID" 2>/dev/null || true
  else
    starzk_log "time limit near (SIGUSR1)"
    starzk_requeue_self || true
  fi
}

# starzk_run_bg COMMAND...: runs COMMAND in the background (STARZK_PID is
# its PID meanwhile, for the USR1 traps) and returns its exit status. A
# trap interrupts `wait`, so it waits again while COMMAND runs.
starzk_run_bg() {
  local rc=0
  "$@" &
  STARZK_PID=$!
  while :; do
    wait "$STARZK_PID" && rc=0 || rc=$?
    kill -0 "$STARZK_PID" 2>/dev/null || break  # still running: a trap interrupted the wait
  done
  STARZK_PID=
  return "$rc"
}

# starzk_prove OUT_DIR [MPI]: create OUT_DIR, prove, and verify when VKEY is set.
# starzk runs in the background so that the USR1 trap fires while it runs;
# with MPI it runs under the launcher in the array STARZK_LAUNCH (srun ...
# rank.sh), which passes the signal on to every rank. A batch stopped by
# the trap (exit 5) requeues the job; where Slurm refuses, the job ends
# with status 5 (resubmit it to resume).
starzk_prove() {
  local out=$1 t0=$SECONDS rc=0
  [ -n "${MANIFEST:-}" ] || mkdir -p "$out" || starzk_die "cannot create OUT_DIR=$out"
  starzk_prove_command "$out" "${2:-}"
  starzk_log "running: ${STARZK_LAUNCH[*]+${STARZK_LAUNCH[*]} }${STARZK_CMD[*]}"
  trap starzk_on_time_limit USR1
  starzk_run_bg ${STARZK_LAUNCH[@]+"${STARZK_LAUNCH[@]}"} "${STARZK_CMD[@]}" || rc=$?
  trap - USR1
  if [ "$rc" = 5 ] && [ -n "${MANIFEST:-}" ]; then
    starzk_log "stopped before the time limit after $((SECONDS - t0)) s; $MANIFEST.partial names what is left"
    starzk_requeue_self && exit 0
    exit 5
  fi
  [ "$rc" = 0 ] || starzk_die "starzk prove failed with exit code $rc"
  if [ -n "${MANIFEST:-}" ]; then starzk_log "proved in $((SECONDS - t0)) s; outputs listed in $MANIFEST.complete"
  else starzk_log "proved in $((SECONDS - t0)) s; outputs in $out"; fi
  if [ -n "${VKEY:-}" ] && [ -z "${MANIFEST:-}" ]; then
    [ -f "$out/proof.json" ] || starzk_die "VKEY given but no $out/proof.json to verify (PARAMS mode writes proof.bin)"
    "$STARZK_BIN" verify --vkey "$VKEY" --proof "$out/proof.json" --public "$out/public.json" \
      || starzk_die "verification of $out/proof.json against $VKEY failed"
    starzk_log "verified $out/proof.json against $VKEY"
  fi
}
