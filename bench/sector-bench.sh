#!/usr/bin/env bash
# A whole Filecoin-shaped sector on one GPU machine: `starzk gen` makes the
# job (compact files: circuit.szcs, key.szpk, witnesses; bellman
# convention, as Filecoin's keys), `starzk prove --manifest` proves every
# partition, `starzk verify` checks proofs.bin against every public input
# file, and a proof with one flipped bit must be refused.
#
#   bench/sector-bench.sh BUILD_DIR OUT_DIR
#
# Variables: STARZK_SECTOR_LOG2 (27), STARZK_SECTOR_PARTITIONS (10),
# STARZK_SECTOR_STEPS ("gen prove": "gen" alone makes the files, "prove"
# alone uses files an earlier call left on the same machine; a 2^27 gen and
# prove may not fit one 10-minute device call, two back-to-back ones do),
# STARZK_SECTOR_DIR (/tmp/starzk-sector: the job's files; kept between runs
# of one machine, and remade only when missing), STARZK_SECTOR_LIMITS
# ("0": the device's whole memory; "0 24000" adds a run with
# STARPU_LIMIT_CUDA_MEM=24000 MiB, the memory of a 24 GB card),
# STARZK_SECTOR_PLACES ("any": the plan's placement; each further word is
# a run with `--place WORD` under every limit, e.g. "any spmv_passes=cpu",
# its files tagged with the word, = and , as -), STARZK_SECTOR_ENVS ("-":
# nothing more; each further word is a run with those variables set, e.g.
# "- STARZK_ROWS_ON_DEVICE=0", comma-separated for several, tagged as the
# places are),
# STARZK_SECTOR_TIMEOUT (seconds each prove may take, none by default: a
# prove past it gets SIGTERM, which writes its trace so far, and the next
# limit runs), STARZK_WATCH_S (20 here: a line on what the batch waits for
# after that many seconds without a finished partition),
# STARZK_SECTOR_PROVE_ARGS (more arguments for every prove, e.g.
# "--threads-per-task 15").
# Writes OUT_DIR/sector-k<K>.txt (every step's output and timing, the
# CPU (model, cores, L3s, whether it has AVX-512 IFMA), the file
# sizes, the disk and memory before and after, StarPU's bus statistics at
# the end of each prove: bytes copied between host and device, so a query
# evicted and copied again, or rows evicted to the host, shows), the trace and its summary
# per run (sector-k<K>-m<LIMIT>.json / .summary.txt) and the device memory
# sampled every 0.2 s (sector-k<K>-m<LIMIT>-vram.csv).
set -uo pipefail
build=${1:?usage: sector-bench.sh BUILD_DIR OUT_DIR}
out=${2:?usage: sector-bench.sh BUILD_DIR OUT_DIR}
exe="$build/bin/starzk"
[ -x "$exe" ] || { echo "sector-bench: $exe not built" >&2; exit 1; }
k=${STARZK_SECTOR_LOG2:-27}
parts=${STARZK_SECTOR_PARTITIONS:-10}
dir=${STARZK_SECTOR_DIR:-/tmp/starzk-sector}/k$k
mkdir -p "$out" "$dir"
log="$out/sector-k$k.txt"
rc=0
say() { echo "== $*" | tee -a "$log"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b - a}'; }

say "sector k=$k partitions=$parts on $(hostname), $(date -u +%FT%TZ)"
{ df -h "$dir"; free -g; nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader
  lscpu | grep -E '^ *(Model name|Socket|Core|Thread|NUMA node|L3|Flags)' | sed 's/^Flags:.*/CPU flags with avx512ifma: '"$(grep -c avx512ifma /proc/cpuinfo)"' of the logical CPUs/'; } >> "$log" 2>&1
steps=${STARZK_SECTOR_STEPS:-gen prove}
case " $steps " in *" gen "*) want_gen=1 ;; *) want_gen=0 ;; esac
case " $steps " in *" prove "*) want_prove=1 ;; *) want_prove=0 ;; esac
if [ ! -f "$dir/jobs.toml" ] && [ $want_gen = 0 ]; then
  say "no job in $dir: run with STARZK_SECTOR_STEPS containing gen first"; exit 1
fi
if [ ! -f "$dir/jobs.toml" ]; then
  t=$(now)
  "$exe" gen -k "$k" -n "$parts" --out "$dir" --convention bellman --format compact --gpu on >> "$log" 2>&1 \
    || { say "gen FAILED"; tail -20 "$log"; exit 1; }
  say "gen took $(since "$t") s"
fi
{ ls -l "$dir"; du -sh "$dir"; df -h "$dir"; } >> "$log" 2>&1

[ $want_prove = 1 ] || exit 0
for limit in ${STARZK_SECTOR_LIMITS:-0}; do
for place in ${STARZK_SECTOR_PLACES:-any}; do
for extra in ${STARZK_SECTOR_ENVS:--}; do
  tag="sector-k$k-m$limit"
  place_args=()
  if [ "$place" != any ]; then
    tag="$tag-$(echo "$place" | tr '=,' '--')"
    place_args=(--place "$place")
  fi
  env=()
  [ "$limit" != 0 ] && env=(STARPU_LIMIT_CUDA_MEM="$limit")
  if [ "$extra" != - ]; then
    tag="$tag-$(echo "$extra" | tr '=,' '--')"
    IFS=, read -r -a more <<< "$extra"
    env+=("${more[@]}")
  fi
  rm -rf "$dir/proofs" "$dir/proofs.bin"
  nvidia-smi --query-gpu=timestamp,memory.used --format=csv,noheader,nounits -lms 200 > "$out/$tag-vram.csv" 2>/dev/null &
  sampler=$!
  t=$(now)
  say "prove ($tag): ${env[*]:-whole device} ${place_args[*]}"
  env "${env[@]}" STARPU_BUS_STATS=1 STARZK_WATCH_S="${STARZK_WATCH_S:-20}" \
    ${STARZK_SECTOR_TIMEOUT:+timeout -s TERM "$STARZK_SECTOR_TIMEOUT"} "$exe" prove --manifest "$dir/jobs.toml" \
    "${place_args[@]}" ${STARZK_SECTOR_PROVE_ARGS:-} --trace "$out/$tag.json" >> "$log" 2>&1 || rc=1
  say "prove ($tag) took $(since "$t") s"
  kill "$sampler" 2>/dev/null
  wait "$sampler" 2>/dev/null
  say "peak device memory (MiB): $(awk -F', ' 'BEGIN{m=0} {if ($2+0 > m) m = $2+0} END{print m}' "$out/$tag-vram.csv")"
  "$exe" trace summary "$out/$tag.json" > "$out/$tag.summary.txt" 2>&1 || rc=1
  head -40 "$out/$tag.summary.txt" >> "$log"
  publics=()
  for ((i = 0; i < parts; ++i)); do publics+=("$dir/proofs/public-$i.json"); done
  if "$exe" verify --params "$dir/key.szpk" --proof "$dir/proofs.bin" --public "${publics[@]}" >> "$log" 2>&1; then
    say "verify ($tag): all $parts proofs OK"
  else
    say "verify ($tag): FAILED"; rc=1
  fi
  cp "$dir/proofs.bin" "$out/$tag-tampered.bin"
  printf '\x01' | dd of="$out/$tag-tampered.bin" bs=1 seek=100 conv=notrunc status=none
  if "$exe" verify --params "$dir/key.szpk" --proof "$out/$tag-tampered.bin" --public "${publics[@]}" >> "$log" 2>&1; then
    say "tampered proofs.bin ACCEPTED ($tag)"; rc=1
  else
    say "tampered proofs.bin refused ($tag)"
  fi
  rm -f "$out/$tag-tampered.bin"
done
done
done
{ free -g; df -h "$dir"; } >> "$log" 2>&1
exit $rc
