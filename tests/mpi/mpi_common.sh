# shellcheck shell=bash
# mpi_common.sh: what the StarPU-MPI tests share (sourced by mpi_test.sh
# and mpi_stop_test.sh, with STARZK_BIN and SOURCE_DIR as $1 and $2).
#
# It exits 77 (skipped) without mpirun or when the binary was built without
# StarPU-MPI, makes a temporary folder and enters it (removed on exit unless
# STARZK_KEEP_TEST_DIR=1), and generates the inputs: gen/ holds a k = 10
# circuit with its key and 3 witnesses (seed 7). It defines
#   say TEXT, check "what" COMMAND...  (failures are counted in $fails,
#   finish_checks ends the script with them)
#   manifest OUT [WITNESS_1]  a batch of 2 jobs x 3 partitions: "gen" (its
#                 partition 1 may be given another witness) and "mul" (the
#                 multiplier fixture), outputs under OUT
#   prove_single MANIFEST LOG  the batch in one process, with the fixed
#                 r, s of $rs (the test fails at once if it fails)
#   run_mpi LOG ARGS...  starzk ARGS under mpirun -np 2; RANK0_ARGS and
#                 RANK1_ARGS (arrays) are added to one rank's arguments;
#                 every rank's exit status goes to LOG.rank0 / LOG.rank1
# Each rank gets its own STARPU_HOME (MPMD `:` syntax), one CPU worker and
# no binding (the two ranks share this machine's cores). The MCA settings
# keep Open MPI on shared memory inside one container (no network, no
# ptrace-based single copy), and let every rank finish when another exits
# with a non-zero status (orte_abort_on_non_zero_status 0), so each rank's
# own status can be checked (mpirun itself then exits 0 unless a rank was
# killed or timed out: read the ranks' files).
starzk=${1:?usage: $0 STARZK_BIN SOURCE_DIR}
src=${2:?usage: $0 STARZK_BIN SOURCE_DIR}
fix=$src/tests/fixtures/multiplier
test_name=$(basename "$0" .sh)

say() { echo "$test_name: $*"; }
command -v mpirun >/dev/null 2>&1 || { say "SKIP: mpirun not found"; exit 77; }
"$starzk" prove --help 2>/dev/null | grep -q -e '--mpi' || { say "SKIP: $starzk built without StarPU-MPI (no --mpi)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/starzk-$test_name.XXXXXX")
cleanup() { if [ "${STARZK_KEEP_TEST_DIR:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
cd "$work" || exit 1

fails=0
check() {  # check "what" command...
  local what=$1; shift
  if "$@" >>"$work/checks.log" 2>&1; then say "ok: $what"; else say "FAIL: $what"; fails=1; fi
}
finish_checks() {
  if [ "$fails" != 0 ]; then
    say "details:"; sed 's/^/  > /' "$work/checks.log"
    exit 1
  fi
  say "all checks passed"
  exit 0
}
export STARPU_SILENT=1
export STARZK_VALIDATED_KEYS="$work/validated-keys"  # never $HOME
rs=1234567890123456789,987654321098765432109876543210

"$starzk" gen -k 10 -n 3 --public 8 --seed 7 --threads 1 --out gen >gen.log 2>&1 || { cat gen.log; say "FAIL: gen"; exit 1; }
manifest() {  # manifest OUT_DIR [WITNESS_OF_GEN_PARTITION_1]
  cat <<EOF
[[job]]
name = "gen"
key = "gen/key.zkey"
circuit = "gen/circuit.r1cs"
witnesses = ["gen/witness-0.wtns", "${2:-gen/witness-1.wtns}", "gen/witness-2.wtns"]
out_dir = "$1/gen"
proofs_bin = "$1/gen.bin"

[[job]]
name = "mul"
key = "$fix/circuit.zkey"
witnesses = ["$fix/witness.wtns", "$fix/witness.wtns", "$fix/witness.wtns"]
out_dir = "$1/mul"
proofs_bin = "$1/mul.bin"
EOF
}

prove_single() {  # prove_single MANIFEST LOG
  STARPU_NCPU=1 STARPU_NCUDA=0 STARPU_HOME="$work/home-single" \
    "$starzk" prove --manifest "$1" --test-fixed-rs "$rs" >"$2" 2>&1 \
    || { cat "$2"; say "FAIL: the single-process run of $1"; exit 1; }
}

RANK0_ARGS=()
RANK1_ARGS=()
run_mpi() {  # run_mpi LOG ARGS...
  local log=$1; shift
  local env=(-x STARPU_SILENT=1 -x STARPU_NCPU=1 -x STARPU_NCUDA=0 -x STARPU_WORKERS_NOBIND=1)
  # shellcheck disable=SC2016  # expanded by the rank's bash
  local keep='"$@"; rc=$?; echo $rc >"$RC_FILE"; exit $rc'
  rm -f "$log.rank0" "$log.rank1"
  timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none \
    --mca btl self,vader --mca btl_vader_single_copy_mechanism none --mca orte_abort_on_non_zero_status 0 \
    -np 1 "${env[@]}" -x STARPU_HOME="$work/home-rank0" -x RC_FILE="$log.rank0" \
    bash -c "$keep" rank0 "$starzk" "$@" "${RANK0_ARGS[@]}" : \
    -np 1 "${env[@]}" -x STARPU_HOME="$work/home-rank1" -x RC_FILE="$log.rank1" \
    bash -c "$keep" rank1 "$starzk" "$@" "${RANK1_ARGS[@]}" >"$log" 2>&1
}
