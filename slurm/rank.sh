#!/usr/bin/env bash
# rank.sh: what srun starts on each node of slurm/prove-mpi.sbatch, one per
# MPI rank. The batch script runs on the first node only, so the per-node
# StarPU set-up happens here: workers from this node's allocation (one core
# kept for StarPU-MPI's progress thread), a node-local STARPU_HOME per rank
# seeded from the shared models, and clean-up (model publishing, scratch
# removal) when the rank ends. Then it runs its arguments (the starzk
# command), passing SIGUSR1 on, and returns their exit status.
#   srun --mpi=pmix slurm/rank.sh starzk prove --manifest jobs.toml --mpi
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$here/common.sh"
[ $# -gt 0 ] || starzk_die "rank.sh: no command to run"
rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-0}}
trap starzk_finish EXIT
starzk_starpu_workers mpi
starzk_scratch_setup "rank$rank"
starzk_log "rank $rank of ${SLURM_NTASKS:-?}: $*"
# SIGUSR1 (the time-limit signal, forwarded by srun to every task) goes on
# to starzk, which stops cleanly and exits 5; where Slurm signals every
# process of the task, starzk gets it twice, which changes nothing.
trap '[ -z "${STARZK_PID:-}" ] || kill -USR1 "$STARZK_PID" 2>/dev/null || true' USR1
rc=0
starzk_run_bg "$@" || rc=$?
case $rc in
  0) ;;
  5) starzk_log "rank $rank: stopped by SIGUSR1 (exit code 5; a rerun resumes)" ;;
  *) starzk_log "rank $rank: command failed with exit code $rc" ;;
esac
exit "$rc"
