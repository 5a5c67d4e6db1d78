#!/usr/bin/env bash
# slurm_test.sh: the slurm/ batch scripts submitted to a real Slurm.
#
#   tests/slurm/slurm_test.sh STARZK_BIN SOURCE_DIR
#
# Starts a one-node Slurm on localhost (scripts/slurm-local.sh: munged,
# slurmctld, slurmd from Debian's slurm-wlm and munge), then submits with
# `sbatch --parsable`:
#   (a) slurm/prove-node.sbatch on the multiplier fixture (prove + verify),
#       with a fake GPU (--gres=gpu:1) and a shared model folder holding one
#       model file: the job log must show STARPU_NCPU = CPUs - 1,
#       STARPU_NCUDA = 1, a STARPU_HOME on the scratch folder seeded with
#       that file, and the scratch must be gone afterwards;
#   (b) slurm/prove-array.sbatch over a list of three entries (with a
#       comment and a blank line that must not count), --gres=none: two
#       manifests (`starzk prove --manifest`, one with TRACE) and one proof
#       when the CLI has --manifest, else three proofs; every proof must
#       verify, STARPU_NCUDA=0, and the bus models StarPU calibrated in the
#       node-local STARPU_HOME must be published to the shared folder;
#   (c) slurm/prove-node.sbatch with a witness that does not belong to the
#       key: the job must end FAILED with a non-zero exit code and no proof;
#   (d) slurm/prove-mpi.sbatch on one node: when `starzk prove --help` has
#       no --mpi, the job must fail with the error that says so; once it
#       has, a two-partition manifest through srun --mpi=pmix and
#       slurm/rank.sh must complete and both proofs verify;
#   (e) prove-mpi with STARZK_RANKS_PER_NODE=2 but one task per node: refused,
#       the log naming --ntasks-per-node;
#   (f) the finished manifest task of (b) requeued (`scontrol requeue`): the
#       second attempt appends to the first one's log and proves nothing
#       again (the journal says every partition is done);
#   (g) --gres=none on a node with a (fake) GPU: the array tasks' logs say the
#       GPUs were hidden (CUDA_VISIBLE_DEVICES set empty);
#   (h) the time-limit signal, sent by hand (`scancel -b -s USR1`) to a
#       prove-node batch of 300 partitions after its first progress line:
#       starzk finishes the partitions in flight and exits 5 (M.partial), the
#       script requeues the job, the second attempt resumes from the journal
#       and completes: COMPLETED 0:0, M.complete, every proof there;
#   (i) the same with prove-mpi, two ranks on the node (--ntasks-per-node=2):
#       the signal reaches both ranks through srun and slurm/rank.sh, both
#       exit 5, the job is requeued and the second attempt completes.
# It polls `squeue -h -j ID` (sbatch --wait polls at 2/8/32 s), reads states
# and exit codes from `scontrol show job ID`, verifies every proof with
# `starzk verify` from the test itself, and stops everything it started on
# exit. Exit 77 (ctest SKIP_RETURN_CODE) when Slurm or munge is not installed,
# the user is not root, or the cluster cannot start.
set -uo pipefail

starzk=${1:?usage: slurm_test.sh STARZK_BIN SOURCE_DIR}
src=${2:?usage: slurm_test.sh STARZK_BIN SOURCE_DIR}
fix="$src/tests/fixtures"
deadline=${STARZK_SLURM_TEST_TIMEOUT:-90}

say() { printf '[slurm-test] %s\n' "$*"; }
skip() { say "SKIP: $*"; exit 77; }
fails=0
check() {  # check DESCRIPTION COMMAND...: one assertion
  local what=$1; shift
  if "$@"; then say "ok: $what"; else say "FAIL: $what"; fails=$((fails + 1)); fi
}

# ---- prerequisites (skip, not fail) -------------------------------------------
for b in slurmctld slurmd munged sbatch squeue scontrol sinfo; do
  command -v "$b" >/dev/null 2>&1 || [ -x "/usr/sbin/$b" ] || skip "$b is not installed (apt-get install slurm-wlm munge)"
done
[ "$(id -u)" = 0 ] || skip "needs root to start slurmd and munged"
[ -x "$starzk" ] || { say "FAIL: no starzk binary at $starzk"; exit 1; }
for d in /proc/[0-9]*; do
  read -r comm <"$d/comm" 2>/dev/null || continue
  case $comm in
    slurmctld|slurmd) skip "a Slurm daemon (pid ${d#/proc/}) is already running: ports 6817/6818 allow one cluster" ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/starzk-slurm-test.XXXXXX")
state="$work/state"
cleanup() {
  "$src/scripts/slurm-local.sh" stop "$state" >/dev/null 2>&1 || true
  if [ "$fails" = 0 ] && [ "${STARZK_KEEP_TEST_DIR:-0}" != 1 ]; then rm -rf "$work"; else say "kept $work"; fi
}
trap cleanup EXIT

t0=$SECONDS
if ! "$src/scripts/slurm-local.sh" start "$state" >"$work/start.log" 2>&1; then
  cat "$work/start.log"
  tail -n 20 "$state"/*.log 2>/dev/null
  fails=1  # keep the folder for a look
  skip "the localhost Slurm did not start"
fi
say "Slurm up in $((SECONDS - t0)) s"
export SLURM_CONF="$state/slurm.conf"
cpus=$(sinfo -h -o %c | head -n1)

# Inputs shared by the jobs: the environment sbatch exports to them. Knobs
# from the caller's environment would change what the jobs do: drop them.
unset MANIFEST MANIFESTS ZKEY PARAMS CIRCUIT WTNS VKEY OUT_DIR POLICY TRACE \
  STARZK_NCPU STARZK_NCUDA STARZK_PROVE_ARGS STARZK_MODEL_HOSTNAME STARZK_PUBLISH_MODELS \
  STARZK_KEEP_SCRATCH STARZK_SLURM_DIR STARZK_RANKS_PER_NODE STARZK_SRUN_ARGS \
  STARPU_PERF_MODEL_DIR STARPU_HOSTNAME STARPU_NCPU STARPU_NCUDA
export STARZK_BIN=$starzk STARZK_SCRATCH="$work/scratch" STARZK_PERF_MODELS="$work/models"
export STARZK_VALIDATED_KEYS="$work/validated-keys"  # never $HOME
mkdir -p "$work/scratch" "$work/models/codelets/45" "$work/out"
echo "fake model" >"$work/models/codelets/45/starzk_test_model.$(hostname -s)"
cd "$work/out" || exit 1

submit() {  # submit NAME ENV-ASSIGNMENTS... -- SBATCH-ARGS...: prints the job id
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" sbatch --parsable -J "$name" "$@" | cut -d';' -f1
}

# (a) one node, one proof, fake GPU
job_a=$(submit node ZKEY="$fix/multiplier/circuit.zkey" WTNS="$fix/multiplier/witness.wtns" \
  VKEY="$fix/multiplier/verification_key.json" OUT_DIR="$work/out/node" -- \
  -o "$work/out/node-%j.log" "$src/slurm/prove-node.sbatch")
# (b) an array of three tasks: two manifests and one proof when the CLI has
# --manifest (batches through StarPU), else three proofs
manifest_cli=0
"$starzk" prove --help 2>/dev/null | grep -q -e '--manifest' && manifest_cli=1
if [ "$manifest_cli" = 1 ]; then
  cat >"$work/m0.toml" <<EOF
[[job]]
name = "multiplier-2"
key = "$fix/multiplier/circuit.zkey"
witnesses = ["$fix/multiplier/witness.wtns", "$fix/multiplier/witness.wtns"]
out_dir = "$work/out/array/0"
EOF
  cat >"$work/m1.toml" <<EOF
[[job]]
name = "bits-1"
key = "$fix/bits/circuit.zkey"
witnesses = ["$fix/bits/witness.wtns"]
out_dir = "$work/out/array/1"
EOF
  cat >"$work/list.txt" <<EOF
# one entry per task
$work/m0.toml

MANIFEST=$work/m1.toml TRACE=$work/out/trace-{task}.json
ZKEY=$fix/mimc/circuit.zkey WTNS=$fix/mimc/witness.wtns OUT_DIR=$work/out/array/{task} VKEY=$fix/mimc/verification_key.json
EOF
else
  cat >"$work/list.txt" <<EOF
# one entry per task
ZKEY=$fix/multiplier/circuit.zkey WTNS=$fix/multiplier/witness.wtns OUT_DIR=$work/out/array/{task}

ZKEY=$fix/bits/circuit.zkey WTNS=$fix/bits/witness.wtns OUT_DIR=$work/out/array/{task}
ZKEY=$fix/mimc/circuit.zkey WTNS=$fix/mimc/witness.wtns OUT_DIR=$work/out/array/{task} VKEY=$fix/mimc/verification_key.json
EOF
fi
job_b=$(submit array MANIFESTS="$work/list.txt" -- --array=0-2 --gres=none --cpus-per-task=1 \
  -o "$work/out/array-%a.log" "$src/slurm/prove-array.sbatch")
# (c) a witness of another circuit: must fail
job_c=$(submit bad ZKEY="$fix/multiplier/circuit.zkey" WTNS="$fix/mimc/witness.wtns" OUT_DIR="$work/out/bad" -- \
  --gres=none -o "$work/out/bad.log" "$src/slurm/prove-node.sbatch")
# (d) multi-node script, on the one node there is
mpi_cli=0
"$starzk" prove --help 2>/dev/null | grep -q -e '--mpi' && mpi_cli=1
if [ "$mpi_cli" = 1 ]; then
  cat >"$work/m-mpi.toml" <<EOF
[[job]]
name = "multiplier-mpi"
key = "$fix/multiplier/circuit.zkey"
witnesses = ["$fix/multiplier/witness.wtns", "$fix/multiplier/witness.wtns"]
out_dir = "$work/out/mpi"
EOF
  job_d=$(submit mpi MANIFEST="$work/m-mpi.toml" -- -N 1 --gres=none -o "$work/out/mpi.log" "$src/slurm/prove-mpi.sbatch")
else
  job_d=$(submit mpi MANIFEST="$work/list.txt" -- -N 1 --gres=none -o "$work/out/mpi.log" "$src/slurm/prove-mpi.sbatch")
fi
# (e) more ranks per node than the job's tasks per node: refused
job_e=$(submit ranks MANIFEST="$work/list.txt" STARZK_RANKS_PER_NODE=2 -- -N 1 --gres=none \
  -o "$work/out/ranks.log" "$src/slurm/prove-mpi.sbatch")
say "submitted: node=$job_a array=$job_b bad=$job_c mpi=$job_d ranks=$job_e"
[[ $job_a =~ ^[0-9]+$ && $job_b =~ ^[0-9]+$ && $job_c =~ ^[0-9]+$ && $job_d =~ ^[0-9]+$ && $job_e =~ ^[0-9]+$ ]] \
  || { say "FAIL: sbatch did not return job ids"; fails=1; exit 1; }

# ---- wait: poll squeue (all jobs, array tasks included) -------------------------
wait_jobs() {
  while [ -n "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; do
    if [ $((SECONDS - t0)) -ge "$deadline" ]; then
      squeue -j "$1"
      say "FAIL: jobs still queued after ${deadline}s"; fails=1; exit 1
    fi
    sleep 0.3
  done
}
wait_jobs "$job_a,$job_b,$job_c,$job_d,$job_e"
say "all jobs done after $((SECONDS - t0)) s"

# states JOBID: "STATE EXIT" per record (one per array task), sorted.
states() {
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' \
    | awk -F= '$1=="JobState"{s=$2} $1=="ExitCode"{print s, $2}' | sort
}
verify() {  # verify DIR VKEY
  "$starzk" verify --vkey "$2" --proof "$1/proof.json" --public "$1/public.json" >/dev/null 2>&1
}
verify_pair() {  # verify_pair DIR I VKEY: DIR/proof-I.json with DIR/public-I.json
  "$starzk" verify --vkey "$3" --proof "$1/proof-$2.json" --public "$1/public-$2.json" >/dev/null 2>&1
}
log_has() { grep -q -e "$2" "$1"; }

# (a)
check "node job COMPLETED 0:0" [ "$(states "$job_a")" = "COMPLETED 0:0" ]
log_a="$work/out/node-$job_a.log"
check "node job: proof verifies" verify "$work/out/node" "$fix/multiplier/verification_key.json"
check "node job: public.json is the fixture's" cmp -s <(tr -d ' \n' <"$work/out/node/public.json") <(tr -d ' \n' <"$fix/multiplier/public.json")
check "node job: the script verified too" log_has "$log_a" "verified .*proof.json"
check "node job: STARPU_NCPU=$((cpus - 1)) STARPU_NCUDA=1" log_has "$log_a" "STARPU_NCPU=$((cpus - 1)) STARPU_NCUDA=1"
check "node job: CUDA_VISIBLE_DEVICES from the gres" log_has "$log_a" "CUDA_VISIBLE_DEVICES=0"
check "node job: STARPU_HOME on scratch" log_has "$log_a" "STARPU_HOME=$work/scratch/starzk-$job_a/starpu-home"
check "node job: seeded 1 model file" log_has "$log_a" "seeded 1 model file(s) from $work/models"
check "node job: scratch removed" [ ! -e "$work/scratch/starzk-$job_a" ]

# (b)
check "array: three tasks COMPLETED 0:0" [ "$(states "$job_b" | grep -c '^COMPLETED 0:0$')" = 3 ]
if [ "$manifest_cli" = 1 ]; then
  check "array task 0 (manifest, 2 partitions): proof 0 verifies" verify_pair "$work/out/array/0" 0 "$fix/multiplier/verification_key.json"
  check "array task 0 (manifest, 2 partitions): proof 1 verifies" verify_pair "$work/out/array/0" 1 "$fix/multiplier/verification_key.json"
  check "array task 1 (manifest): proof verifies" verify_pair "$work/out/array/1" 0 "$fix/bits/verification_key.json"
  check "array task 1: TRACE passed through" [ -s "$work/out/trace-1.json" ]
  check "array task 0: ran starzk prove --manifest" log_has "$work/out/array-0.log" "prove --manifest $work/m0.toml"
  # StarPU calibrated the bus in the node-local STARPU_HOME; the EXIT trap published it.
  check "array: StarPU's models published to the shared folder" [ -s "$work/models/bus/$(hostname -s).config" ]
  check "array: no temporary file left in the shared folder" [ -z "$(find "$work/models" -name '.*.tmp.*')" ]
else
  check "array task 0 (multiplier): proof verifies" verify "$work/out/array/0" "$fix/multiplier/verification_key.json"
  check "array task 1 (bits): proof verifies" verify "$work/out/array/1" "$fix/bits/verification_key.json"
fi
check "array task 2 (mimc): proof verifies" verify "$work/out/array/2" "$fix/mimc/verification_key.json"
for t in 0 1 2; do
  check "array task $t: STARPU_NCPU=1 STARPU_NCUDA=0" log_has "$work/out/array-$t.log" "STARPU_NCPU=1 STARPU_NCUDA=0"
done
check "array task 2: the script verified (line's VKEY)" log_has "$work/out/array-2.log" "verified .*proof.json"
check "array: a wrong key does not verify (mimc proof, bits key)" \
  bash -c "! \"$starzk\" verify --vkey '$fix/bits/verification_key.json' --proof '$work/out/array/2/proof.json' --public '$work/out/array/2/public.json' >/dev/null 2>&1"

# (c)
st_c=$(states "$job_c")
check "bad job FAILED with a non-zero exit code ($st_c)" bash -c "[[ '$st_c' == FAILED* && '$st_c' != *' 0:0' ]]"
check "bad job: no proof written" [ ! -e "$work/out/bad/proof.json" ]
check "bad job: the log says why" log_has "$work/out/bad.log" "starzk prove failed"

# (d)
if [ "$mpi_cli" = 0 ]; then
  check "mpi job refused without --mpi in the CLI" bash -c "[[ '$(states "$job_d")' == FAILED* ]]"
  check "mpi job: the log says why" log_has "$work/out/mpi.log" "has no 'prove --mpi'"
else
  check "mpi job COMPLETED 0:0" [ "$(states "$job_d")" = "COMPLETED 0:0" ]
  check "mpi job: rank 0 set StarPU up (one core for MPI)" log_has "$work/out/mpi.log" "STARPU_NCPU=$((cpus - 1)) STARPU_NCUDA=0"
  check "mpi job: proof 0 verifies" verify_pair "$work/out/mpi" 0 "$fix/multiplier/verification_key.json"
  check "mpi job: proof 1 verifies" verify_pair "$work/out/mpi" 1 "$fix/multiplier/verification_key.json"
fi

# (e)
check "ranks job refused (FAILED)" bash -c "[[ '$(states "$job_e")' == FAILED* ]]"
check "ranks job: the log names --ntasks-per-node" log_has "$work/out/ranks.log" "ntasks-per-node=2"

# (g)
check "array: --gres=none hid the node's GPU" log_has "$work/out/array-0.log" "CUDA_VISIBLE_DEVICES set empty"

# (f) requeue a finished manifest task: its log grows, nothing is proved again
if [ "$manifest_cli" = 1 ]; then
  if scontrol requeue "${job_b}_0" 2>"$work/requeue.err"; then
    # Slurm holds a requeued job back (BeginTime a while ahead): start it now.
    scontrol update JobId="${job_b}_0" StartTime=now 2>>"$work/requeue.err" || true
    wait_jobs "$job_b"
    log0="$work/out/array-0.log"
    check "requeued task: COMPLETED again" [ "$(states "$job_b" | grep -c '^COMPLETED 0:0$')" = 3 ]
    check "requeued task: the first attempt's log kept" log_has "$log0" "attempt 1"
    check "requeued task: the second attempt appended" log_has "$log0" "attempt 2"
    check "requeued task: resumed from the journal" log_has "$log0" "finished by an earlier run"
  else
    say "FAIL: scontrol requeue ${job_b}_0: $(cat "$work/requeue.err")"; fails=$((fails + 1))
  fi
fi

# (h) SIGUSR1 before the time limit: stop cleanly, requeue, resume.
# long_manifest FILE N OUT: a batch of N multiplier partitions.
long_manifest() {
  {
    echo '[[job]]'
    echo 'name = "long"'
    echo "key = \"$fix/multiplier/circuit.zkey\""
    printf 'witnesses = ['
    for ((i = 0; i < $2; i++)); do printf '%s"%s"' "$([ $i = 0 ] || echo ', ')" "$fix/multiplier/witness.wtns"; done
    echo ']'
    echo "out_dir = \"$3\""
  } >"$1"
}
# stopped_and_resumed WHAT JOB LOG MANIFEST OUT N: the checks of a batch
# stopped by SIGUSR1, requeued and completed.
stopped_and_resumed() {
  local what=$1 job=$2 log=$3 m=$4 out=$5 n=$6
  check "$what: the script passed SIGUSR1 on" log_has "$log" "starzk finishes the partitions in flight"
  check "$what: starzk stopped cleanly" log_has "$log" "stopped by SIGUSR1"
  check "$what: requeued, second attempt" log_has "$log" "attempt 2"
  check "$what: resumed from the journal" log_has "$log" "partitions were finished by an earlier run"
  check "$what: COMPLETED 0:0" [ "$(states "$job")" = "COMPLETED 0:0" ]
  check "$what: M.complete written, M.partial gone" bash -c "[ -s '$m.complete' ] && [ ! -e '$m.partial' ]"
  check "$what: every proof there" [ "$(find "$out" -name 'proof-*.json' | wc -l)" = "$n" ]
  check "$what: the last proof verifies" verify_pair "$out" $((n - 1)) "$fix/multiplier/verification_key.json"
}
# signal_when JOB LOG TEXT: `scancel -b -s USR1` once LOG shows TEXT.
signal_when() {
  until log_has "$2" "$3" 2>/dev/null || [ $((SECONDS - t0)) -ge "$deadline" ] \
        || [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; do sleep 0.1; done
  scancel -b -s USR1 "$1"
}
if [ "$manifest_cli" = 1 ]; then
  n_h=300
  long_manifest "$work/m-long.toml" "$n_h" "$work/out/long"
  deadline=$((SECONDS - t0 + 120))
  job_h=$(submit long MANIFEST="$work/m-long.toml" STARZK_PROVE_ARGS="--mem-budget 1M" -- --gres=none -o "$work/out/long.log" "$src/slurm/prove-node.sbatch")
  signal_when "$job_h" "$work/out/long.log" "progress: partitions"
  # The requeued job waits cred_expire (10 s on this cluster, scripts/slurm-local.sh;
  # started sooner, slurmd refuses its revoked credential), then runs again.
  wait_jobs "$job_h"
  stopped_and_resumed "stopped batch" "$job_h" "$work/out/long.log" "$work/m-long.toml" "$work/out/long" "$n_h"
fi

# (i) the same through prove-mpi, two ranks on the node: the script passes
# the signal to srun, srun to both ranks (rank.sh on to starzk); every rank
# exits 5, the job is requeued and the next attempt proves the rest.
if [ "$mpi_cli" = 1 ]; then
  n_i=300
  long_manifest "$work/m-long-mpi.toml" "$n_i" "$work/out/long-mpi"
  deadline=$((SECONDS - t0 + 120))
  job_i=$(submit longmpi MANIFEST="$work/m-long-mpi.toml" STARZK_PROVE_ARGS="--mem-budget 1M" -- -N 1 \
    --ntasks-per-node=2 --gres=none -o "$work/out/long-mpi.log" "$src/slurm/prove-mpi.sbatch")
  signal_when "$job_i" "$work/out/long-mpi.log" "partitions on 2 MPI ranks"
  wait_jobs "$job_i"
  stopped_and_resumed "stopped MPI batch" "$job_i" "$work/out/long-mpi.log" "$work/m-long-mpi.toml" \
    "$work/out/long-mpi" "$n_i"
  check "stopped MPI batch: both ranks exited 5" \
    [ "$(grep -c "rank [01]: stopped by SIGUSR1 (exit code 5" "$work/out/long-mpi.log")" = 2 ]
fi

if [ "$fails" != 0 ]; then
  for f in "$work"/out/*.log; do echo "---- $f"; cat "$f"; done
  say "$fails check(s) failed"
  exit 1
fi
say "all checks passed in $((SECONDS - t0)) s"
