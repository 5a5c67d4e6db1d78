#!/usr/bin/env bash
# mpi_test.sh STARZK_BIN SOURCE_DIR: multi-node proving (StarPU-MPI) run as
# two MPI ranks on this machine with `mpirun -np 2`.
#
# A batch of 2 jobs x 3 partitions (a generated k = 10 circuit, and the
# multiplier fixture) is proved
#   (a) in one process: starzk prove --manifest M --test-fixed-rs R,S
#   (b) under mpirun -np 2: the same with --mpi, partition p on rank p mod 2;
# then: (b) must succeed on both ranks (M.complete), both ranks must have proved 3 partitions, every
# proof must verify (`starzk verify`, binary and JSON forms), and the
# outputs of (b) must equal those of (a) byte for byte, file for file (same
# r, s), with no temporary file left behind.
#   (c) under mpirun -np 2, with partition 1 of the generated job (owned by
#       rank 1) given a witness of another circuit of the same size: the run
#       must fail, rank 0 must name that partition, its job must get no
#       .bin, and the other partitions' outputs must still be written;
#       both ranks exit 1 and M.partial names the failed partition.
#   (d) (b) again with --log-format json: every line the ranks write is one
#       JSON object; rank 0's start, resume and summary events say 6
#       partitions on 2 ranks, all finished by the earlier run; each rank
#       reports its share (event rank).
# Common set-up (skips, inputs, run_mpi): mpi_common.sh.
# STARZK_KEEP_TEST_DIR=1 keeps the folder.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=mpi_common.sh
. "$(dirname "$0")/mpi_common.sh"

"$starzk" gen -k 10 -n 1 --public 8 --seed 8 --threads 1 --no-key --out other >>gen.log 2>&1 || { cat gen.log; say "FAIL: gen (other)"; exit 1; }
manifest single >single.toml
manifest mpi >mpi.toml
manifest bad other/witness-0.wtns >bad.toml

# ---- (a) one process --------------------------------------------------------
prove_single single.toml single.log

# ---- (b) two ranks ----------------------------------------------------------
run_mpi mpi.log prove --manifest mpi.toml --mpi --test-fixed-rs "$rs"
rc=$?
sed 's/^/  | /' mpi.log
check "mpirun -np 2 exits 0" [ "$rc" = 0 ]
check "rank 0 reports 6 of 6 proofs on 2 ranks" grep -q "6 of 6 proofs verified and written .* on 2 ranks" mpi.log
check "rank 0 proved its 3 partitions" grep -q "rank 0: 3 partitions proved" mpi.log
check "rank 1 proved its 3 partitions" grep -q "rank 1: 3 partitions proved" mpi.log
check "both ranks exit 0" [ "$(cat mpi.log.rank0 mpi.log.rank1)" = $'0\n0' ]
check "rank 0 wrote mpi.toml.complete" grep -q '"complete": true' mpi.toml.complete
check "no mpi.toml.partial" [ ! -e mpi.toml.partial ]
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
sed 's/^/  | /' bad.log
check "a failed partition fails the run: both ranks exit 1" [ "$(cat bad.log.rank0 bad.log.rank1)" = $'1\n1' ]
check "bad.toml.partial names the failed partition" grep -q '"reason": "failed: .*partition 1 (witness-0.wtns)' bad.toml.partial
check "the error names the partition" grep -q "job 'gen' partition 1 (witness-0.wtns)" bad.log
check "the summary says 5 of 6" grep -q "5 of 6 proofs verified and written" bad.log
check "no .bin for the failed job" [ ! -e bad/gen.bin ]
check "no proof for the failed partition" [ ! -e bad/gen/proof-1.json ]
check "the other partitions of the job are written" [ -s bad/gen/proof-0.json -a -s bad/gen/proof-2.json ]
check "the other job is complete and verifies" "$starzk" verify --zkey "$fix/circuit.zkey" --proof bad/mul.bin \
  --public bad/mul/public-0.json --public bad/mul/public-1.json --public bad/mul/public-2.json

# ---- (d) JSON lines under mpirun ----------------------------------------------
run_mpi json.log prove --manifest mpi.toml --mpi --log-format json
sed 's/^/  | /' json.log
check "json run: both ranks exit 0" [ "$(cat json.log.rank0 json.log.rank1)" = $'0\n0' ]
check "json run: every line is a JSON object with t, event and message" python3 -c '
import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert lines, "no lines"
for l in lines:
    o = json.loads(l)
    assert isinstance(o, dict) and {"t", "event", "message"} <= o.keys(), l
' json.log
check "json run: start, resume, rank, job and summary events" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def one(kind):
    found = [e for e in ev if e["event"] == kind]
    assert len(found) == 1, (kind, found)
    return found[0]
start, resume, summary = one("start"), one("resume"), one("summary")
assert start["partitions"] == 6 and start["ranks"] == 2 and start["jobs"] == 2, start
assert resume["resumed"] == 6, resume
assert summary["partitions"] == 6 and summary["resumed"] == 6 and summary["ok"] and summary["mpi_ranks"] == 2, summary
assert sorted(e["rank"] for e in ev if e["event"] == "rank") == [0, 1]
assert len([e for e in ev if e["event"] == "job"]) == 2
' json.log

finish_checks
