#!/usr/bin/env bash
# mpi_stop_test.sh STARZK_BIN SOURCE_DIR: SIGUSR1 on one rank of
# `starzk prove --manifest M --mpi` (two ranks under mpirun), the markers,
# and the resume of the rerun.
#
# The batch is 2 jobs x 3 partitions (mpi_common.sh): global partitions
# 0..5 are gen 0-2 and mul 0-2, rank 0 owns 0, 2, 4 and rank 1 owns 1, 3, 5.
# The hidden --test-mpi-stop option puts the stop at a known point:
#   (a) reference: the batch in one process (fixed r, s);
#   (b) rank 1 sends itself SIGUSR1 after submitting its first partition
#       (gen 1); rank 0, never signalled, waits after its first (gen 0)
#       until rank 1's word comes. Both ranks must exit 5, rank 0 must say
#       it learned of the stop from rank 1, exactly gen 0 and gen 1 must be
#       written (both verify), and M.partial (no M.complete) must say
#       stopped by SIGUSR1 and list gen 2, mul 0-2 as not proved and both
#       .bin files as missing;
#   (c) the rerun, without the option: both ranks exit 0, each proves only
#       its 2 unfinished partitions (the log says 2 of 6 were finished
#       before), M.complete names all 14 outputs, M.partial is gone, every
#       proof verifies, and the outputs equal (a)'s byte for byte;
#   (d) rank 1 signalled as in (b), rank 0 without the option (it may have
#       submitted all its partitions before the word comes: it learns of
#       the stop in the gather at the latest): both ranks exit 5, mul 0
#       and mul 2 (rank 1's) are missing, gen 1 is written, and M.partial
#       lists exactly the partitions that have no proof file.
# Needs python3 to read the markers. STARZK_KEEP_TEST_DIR=1 keeps the folder.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=mpi_common.sh
. "$(dirname "$0")/mpi_common.sh"
command -v python3 >/dev/null 2>&1 || { say "SKIP: python3 not found (it reads the markers)"; exit 77; }

manifest single >single.toml
manifest mpi >mpi.toml
manifest late >late.toml

# marker FILE EXPR: evaluates the Python expression EXPR on the marker's JSON
# (as m; missing as a sorted list of "job:partition"), true when it holds.
marker() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
missing = sorted(f"{e['job']}:{e['partition']}" for e in m.get("missing", []))
ok = eval(sys.argv[2], {"m": m, "missing": missing})
print(m, missing, ok)
sys.exit(0 if ok else 1)
EOF
}
verify_pair() {  # verify_pair DIR JOB I
  local key=gen/key.zkey
  [ "$2" = mul ] && key=$fix/circuit.zkey
  "$starzk" verify --zkey "$key" --proof "$1/$2/proof-$3.json" --public "$1/$2/public-$3.json"
}
ranks_exit() {  # ranks_exit LOG STATUS
  [ "$(cat "$1.rank0" "$1.rank1")" = "$2"$'\n'"$2" ]
}

# ---- (a) one process --------------------------------------------------------
prove_single single.toml single.log

# ---- (b) SIGUSR1 on rank 1 only, rank 0 waits for the word ---------------
RANK0_ARGS=(--test-mpi-stop await)
RANK1_ARGS=(--test-mpi-stop signal)
run_mpi stop.log prove --manifest mpi.toml --mpi --test-fixed-rs "$rs"
sed 's/^/  | /' stop.log
check "both ranks exit 5" ranks_exit stop.log 5
check "rank 1 took SIGUSR1" grep -q "starzk: SIGUSR1 after" stop.log
check "rank 0 learned of the stop from rank 1" grep -q "rank 0: rank 1 stopped (SIGUSR1)" stop.log
check "the summary: 2 of 6, stopped, 4 not proved" \
  grep -q "2 of 6 proofs verified and written .*stopped by SIGUSR1, 4 partitions not proved" stop.log
check "gen 0 and gen 1 written" [ -s mpi/gen/proof-0.json -a -s mpi/gen/proof-1.json ]
check "nothing else written" bash -c "[ \$(ls mpi/gen mpi/mul 2>/dev/null | grep -c proof-) = 2 ] && [ ! -e mpi/gen.bin ] && [ ! -e mpi/mul.bin ]"
check "gen proof-0.json verifies" verify_pair mpi gen 0
check "gen proof-1.json verifies" verify_pair mpi gen 1
check "no M.complete" [ ! -e mpi.toml.complete ]
check "M.partial: stopped by SIGUSR1, 2 proved" marker mpi.toml.partial \
  'm["complete"] is False and m["stopped"] == "SIGUSR1" and m["proved"] == 2 and m["partitions"] == 6'
check "M.partial: gen 2 and mul 0-2 not proved" marker mpi.toml.partial \
  'missing == ["gen:2", "mul:0", "mul:1", "mul:2"] and all(e["reason"] == "not proved" for e in m["missing"])'
check "M.partial: both .bin missing, gen 0-1 outputs named" marker mpi.toml.partial \
  'sorted(m["missing_outputs"]) == ["mpi/gen.bin", "mpi/mul.bin"] and len(m["outputs"]) == 4'

# ---- (c) the rerun resumes ---------------------------------------------------
RANK0_ARGS=()
RANK1_ARGS=()
run_mpi rerun.log prove --manifest mpi.toml --mpi --test-fixed-rs "$rs"
sed 's/^/  | /' rerun.log
check "rerun: both ranks exit 0" ranks_exit rerun.log 0
check "rerun: 2 of 6 were finished before" grep -q "2 of 6 partitions were finished by an earlier run" rerun.log
check "rerun: rank 0 proved 2 (gen 2, mul 1)" grep -q "rank 0: 2 partitions proved" rerun.log
check "rerun: rank 1 proved 2 (mul 0, mul 2)" grep -q "rank 1: 2 partitions proved" rerun.log
check "rerun: 6 of 6" grep -q "6 of 6 proofs verified and written" rerun.log
check "rerun: M.complete names the 14 outputs" marker mpi.toml.complete \
  'm["complete"] is True and m["proved"] == 6 and len(m["outputs"]) == 14 and "mpi/gen.bin" in m["outputs"]'
check "rerun: M.partial gone" [ ! -e mpi.toml.partial ]
check "rerun: same files, same bytes as one process" diff -r -x .starzk-journal single mpi
for j in gen mul; do
  for i in 0 1 2; do check "rerun: $j proof-$i.json verifies" verify_pair mpi $j $i; done
done
check "rerun: gen.bin verifies" "$starzk" verify --zkey gen/key.zkey --proof mpi/gen.bin \
  --public mpi/gen/public-0.json --public mpi/gen/public-1.json --public mpi/gen/public-2.json
check "rerun: mul.bin verifies" "$starzk" verify --zkey "$fix/circuit.zkey" --proof mpi/mul.bin \
  --public mpi/mul/public-0.json --public mpi/mul/public-1.json --public mpi/mul/public-2.json

# ---- (d) SIGUSR1 on rank 1 only, rank 0 not waiting ------------------------
RANK1_ARGS=(--test-mpi-stop signal)
run_mpi late.log prove --manifest late.toml --mpi
sed 's/^/  | /' late.log
check "late: both ranks exit 5" ranks_exit late.log 5
check "late: gen 1 written, mul 0 and mul 2 not" \
  bash -c "[ -s late/gen/proof-1.json ] && [ ! -e late/mul/proof-0.json ] && [ ! -e late/mul/proof-2.json ]"
have=$(cd late 2>/dev/null && find gen mul -name 'proof-*.json' | sed 's/\/proof-/:/; s/\.json//' | sort | tr '\n' ' ')
check "late: M.partial lists exactly what has no proof ($have)" marker late.toml.partial \
  "sorted(set(f'{j}:{i}' for j in ('gen', 'mul') for i in range(3)) - set('$have'.split())) == missing"
check "late: mul 0 and mul 2 are among the missing" marker late.toml.partial '"mul:0" in missing and "mul:2" in missing'

finish_checks
