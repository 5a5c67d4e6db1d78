#!/usr/bin/env bash
# mpi_test.sh STARZK_BIN SOURCE_DIR: multi-node proving (StarPU-MPI) run as
# two MPI ranks on this machine with `mpirun -np 2`.
#
# A batch of 2 jobs x 3 partitions (a generated k = 10 circuit, and the
# multiplier fixture) is proved
#   (a) in one process: starzk prove --manifest M --test-fixed-rs R,S
#   (b) under mpirun -np 2: the same with --mpi, partition p on rank p mod 2;
# then: (b) must succeed, both ranks must have proved 3 partitions, every
# proof must verify (`starzk verify`, binary and JSON forms), and the
# outputs of (b) must equal those of (a) byte for byte, file for file (same
# r, s), with no temporary file left behind.
#   (c) under mpirun -np 2, with partition 1 of the generated job (owned by
#       rank 1) given a witness of another circuit of the same size: the run
#       must fail, rank 0 must name that partition, its job must get no
#       .bin, and the other partitions' outputs must still be written.
# Each rank gets its own STARPU_HOME (MPMD `:` syntax), one CPU worker and
# no binding (the two ranks share this machine's cores). The MCA settings
# keep Open MPI on shared memory inside one container (no network, no
# ptrace-based single copy). Exit 77 (skipped) without mpirun or when the
# binary was built without StarPU-MPI. STARZK_KEEP_TEST_DIR=1 keeps the folder.
set -uo pipefail
starzk=${1:?usage: mpi_test.sh STARZK_BIN SOURCE_DIR}
src=${2:?usage: mpi_test.sh STARZK_BIN SOURCE_DIR}
fix=$src/tests/fixtures/multiplier

say() { echo "mpi_test: $*"; }
command -v mpirun >/dev/null 2>&1 || { say "SKIP: mpirun not found"; exit 77; }
"$starzk" prove --help 2>/dev/null | grep -q -e '--mpi' || { say "SKIP: $starzk built without StarPU-MPI (no --mpi)"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/starzk-mpi-test.XXXXXX")
cleanup() { if [ "${STARZK_KEEP_TEST_DIR:-0}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
cd "$work" || exit 1

fails=0
check() {  # check "what" command...
  local what=$1; shift
  if "$@" >>"$work/checks.log" 2>&1; then say "ok: $what"; else say "FAIL: $what"; fails=1; fi
}
export STARPU_SILENT=1
export STARZK_VALIDATED_KEYS="$work/validated-keys"  # never $HOME
rs=1234567890123456789,987654321098765432109876543210

# ---- inputs -----------------------------------------------------------------
"$starzk" gen -k 10 -n 3 --public 8 --seed 7 --threads 1 --out gen >gen.log 2>&1 || { cat gen.log; say "FAIL: gen"; exit 1; }
"$starzk" gen -k 10 -n 1 --public 8 --seed 8 --threads 1 --no-key --out other >>gen.log 2>&1 || { cat gen.log; say "FAIL: gen (other)"; exit 1; }
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
manifest single >single.toml
manifest mpi >mpi.toml
manifest bad other/witness-0.wtns >bad.toml

# Two ranks, each with its own StarPU_HOME; extra arguments go to starzk.
run_mpi() {  # run_mpi LOG ARGS...
  local log=$1; shift
  local env=(-x STARPU_SILENT=1 -x STARPU_NCPU=1 -x STARPU_NCUDA=0 -x STARPU_WORKERS_NOBIND=1)
  timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none \
    --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
    -np 1 "${env[@]}" -x STARPU_HOME="$work/home-rank0" "$starzk" "$@" : \
    -np 1 "${env[@]}" -x STARPU_HOME="$work/home-rank1" "$starzk" "$@" >"$log" 2>&1
}

# ---- (a) one process --------------------------------------------------------
STARPU_NCPU=1 STARPU_NCUDA=0 STARPU_HOME="$work/home-single" \
  "$starzk" prove --manifest single.toml --test-fixed-rs "$rs" >single.log 2>&1
rc=$?
[ "$rc" = 0 ] || { cat single.log; say "FAIL: the single-process run (exit $rc)"; exit 1; }

# ---- (b) two ranks ----------------------------------------------------------
run_mpi mpi.log prove --manifest mpi.toml --mpi --test-fixed-rs "$rs"
rc=$?
sed 's/^/  | /' mpi.log
check "mpirun -np 2 exits 0" [ "$rc" = 0 ]
check "rank 0 reports 6 of 6 proofs on 2 ranks" grep -q "6 of 6 proofs verified and written .* on 2 ranks" mpi.log
check "rank 0 proved its 3 partitions" grep -q "rank 0: 3 partitions proved" mpi.log
check "rank 1 proved its 3 partitions" grep -q "rank 1: 3 partitions proved" mpi.log
# The batch journals list the same partitions in the order they finished.
same_journals() {
  local j
  for j in single/*/.starzk-journal; do
    cmp -s <(sort "$j") <(sort "mpi/${j#single/}") || return 1
  done
}
check "same files, same bytes as one process (same r, s)" diff -r -x .starzk-journal single mpi
check "the same journal entries as one process" same_journals
check "no temporary file left" bash -c "! find mpi -name '*.tmp.*' | grep -q ."
gen_pub=(--public mpi/gen/public-0.json --public mpi/gen/public-1.json --public mpi/gen/public-2.json)
mul_pub=(--public mpi/mul/public-0.json --public mpi/mul/public-1.json --public mpi/mul/public-2.json)
check "gen.bin: 3 proofs verify" "$starzk" verify --zkey gen/key.zkey --proof mpi/gen.bin "${gen_pub[@]}"
check "mul.bin: 3 proofs verify" "$starzk" verify --zkey "$fix/circuit.zkey" --proof mpi/mul.bin "${mul_pub[@]}"
for i in 0 1 2; do
  check "gen proof-$i.json verifies" "$starzk" verify --zkey gen/key.zkey --proof mpi/gen/proof-$i.json --public mpi/gen/public-$i.json
  check "mul proof-$i.json verifies" "$starzk" verify --vkey "$fix/verification_key.json" --proof mpi/mul/proof-$i.json --public mpi/mul/public-$i.json
done
check "a wrong public input is refused" bash -c "! '$starzk' verify --zkey gen/key.zkey --proof mpi/gen/proof-0.json --public mpi/gen/public-1.json"

# ---- (c) a partition failing on rank 1 --------------------------------------
run_mpi bad.log prove --manifest bad.toml --mpi
rc=$?
sed 's/^/  | /' bad.log
check "a failed partition fails the run" [ "$rc" != 0 ]
check "the error names the partition" grep -q "job 'gen' partition 1 (witness-0.wtns)" bad.log
check "the summary says 5 of 6" grep -q "5 of 6 proofs verified and written" bad.log
check "no .bin for the failed job" [ ! -e bad/gen.bin ]
check "no proof for the failed partition" [ ! -e bad/gen/proof-1.json ]
check "the other partitions of the job are written" [ -s bad/gen/proof-0.json -a -s bad/gen/proof-2.json ]
check "the other job is complete and verifies" "$starzk" verify --zkey "$fix/circuit.zkey" --proof bad/mul.bin \
  --public bad/mul/public-0.json --public bad/mul/public-1.json --public bad/mul/public-2.json

if [ "$fails" != 0 ]; then
  say "details:"; sed 's/^/  > /' checks.log
  exit 1
fi
say "all checks passed"
