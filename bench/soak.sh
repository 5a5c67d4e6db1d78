#!/usr/bin/env bash
# The CPU soak: many proofs in one process, its resident memory sampled, to
# show that a batch that runs for days does not grow (docs/reliability.md).
#
#   bench/soak.sh BUILD_DIR OUT_DIR
#
# `starzk gen` makes a 2^k Filecoin-shaped circuit, a development key and
# STARZK_SOAK_WITNESSES distinct witnesses; one `starzk prove --manifest`
# then proves STARZK_SOAK_PROOFS partitions (the witnesses reused in turn)
# on the CPU workers only (--gpus 0), writing the 192-byte proofs. Every
# STARZK_SOAK_INTERVAL seconds the script reads VmRSS of that process
# (/proc/PID/status) and writes OUT_DIR/soak-rss.csv (seconds, RSS KiB,
# device MiB).
# At the end it prints the RSS after warm-up (the first sample taken once
# STARZK_SOAK_WARMUP of the run's time has passed, default 0.25), the
# highest and the last RSS, and the growth (the highest after warm-up less
# the RSS at warm-up: the drop while the process exits hides nothing), and
# fails if the batch failed or the growth exceeds STARZK_SOAK_MAX_GROWTH_MIB
# (default 64).
# Defaults: STARZK_SOAK_LOG2=10, STARZK_SOAK_PROOFS=1000,
# STARZK_SOAK_WITNESSES=8, STARZK_SOAK_INTERVAL=0.5, STARZK_SOAK_CPUS (the
# StarPU CPU workers, default StarPU's), STARZK_SOAK_MEM_BUDGET=2G (the
# batch's --mem-budget).
# The GPU soak: STARZK_SOAK_GPUS=N (default 0) proves with N CUDA workers
# (gen then runs on the GPU too), and every sample also reads the device
# memory the process holds (nvidia-smi, per process, MiB) into a third
# column; its growth after warm-up is checked against the same limit.
set -uo pipefail
build=${1:?usage: soak.sh BUILD_DIR OUT_DIR}
out=${2:?usage: soak.sh BUILD_DIR OUT_DIR}
exe="$build/bin/starzk"
[ -x "$exe" ] || { echo "soak: $exe not built" >&2; exit 1; }
k=${STARZK_SOAK_LOG2:-10}
proofs=${STARZK_SOAK_PROOFS:-1000}
witnesses=${STARZK_SOAK_WITNESSES:-8}
interval=${STARZK_SOAK_INTERVAL:-0.5}
warmup=${STARZK_SOAK_WARMUP:-0.25}
max_growth=${STARZK_SOAK_MAX_GROWTH_MIB:-64}
cpus=()
[ -n "${STARZK_SOAK_CPUS:-}" ] && cpus=(--cpus "$STARZK_SOAK_CPUS")
# The host memory partitions in flight may hold (prove --mem-budget): small,
# so that the batch runs in its steady state (a few partitions loaded ahead)
# rather than loading every witness first.
budget=${STARZK_SOAK_MEM_BUDGET:-2G}
gpus=${STARZK_SOAK_GPUS:-0}
gen_device=off
if [ "$gpus" != 0 ]; then
  command -v nvidia-smi >/dev/null || { echo "soak: STARZK_SOAK_GPUS=$gpus but no nvidia-smi" >&2; exit 1; }
  gen_device=on
fi
vram_of() {  # MiB of device memory process $1 holds (0 when none)
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
    awk -F', *' -v p="$1" '$1 == p { m += $2 } END { print m + 0 }'
}
mkdir -p "$out"
job="$out/soak-job"
rm -rf "$job"

echo "[soak] making a 2^$k circuit, key and $witnesses witnesses for $proofs proofs ($gpus GPU workers)"
"$exe" gen --log2 "$k" --partitions "$proofs" --distinct-witnesses "$witnesses" --gpu "$gen_device" --out "$job" \
  >"$out/soak-gen.log" 2>&1 || { cat "$out/soak-gen.log" >&2; echo "[soak] gen failed" >&2; exit 1; }
manifest="$job/jobs.toml"
# One binary output for the whole job: 1000 proof.json pairs would only
# measure the file system.
sed -i -e '/^out_dir/d' "$manifest"
grep -q '^proofs_bin' "$manifest" || sed -i -e '/^\[\[job\]\]/a proofs_bin = "soak.proofs"' "$manifest"

export STARPU_SILENT=1 STARZK_VALIDATED_KEYS=off
"$exe" prove --manifest "$manifest" --gpus "$gpus" --quiet --fresh --mem-budget "$budget" "${cpus[@]}" >"$out/soak-prove.log" 2>&1 &
pid=$!
t0=$(date +%s.%N)
echo "seconds,rss_kib,vram_mib" >"$out/soak-rss.csv"
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/{print $2}' "/proc/$pid/status" 2>/dev/null)
  vram=0
  [ "$gpus" != 0 ] && vram=$(vram_of "$pid")
  [ -n "$rss" ] && echo "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'),$rss,$vram" >>"$out/soak-rss.csv"
  sleep "$interval"
done
wait "$pid"
rc=$?
tail -n 3 "$out/soak-prove.log"
[ $rc = 0 ] || { echo "[soak] the batch failed (exit $rc): $out/soak-prove.log" >&2; exit 1; }

awk -F, -v warm="$warmup" -v max="$max_growth" -v proofs="$proofs" '
  NR > 1 { t[n] = $1; r[n] = $2; v[n] = $3; n++ }
  END {
    if (n < 3) { print "[soak] too few samples"; exit 1 }
    end = t[n - 1]
    for (i = 0; i < n && t[i] < warm * end; i++) {}
    if (i >= n) i = n - 1
    peak = 0; for (j = i; j < n; j++) if (r[j] > peak) peak = r[j]
    growth = (peak - r[i]) / 1024  # the highest after warm-up: the drop at exit hides nothing
    printf "[soak] %d proofs in %.0f s, %d RSS samples: %.1f MiB after warm-up (%.0f s), peak %.1f MiB, last %.1f MiB, growth %+.1f MiB\n",
      proofs, end, n, r[i] / 1024, t[i], peak / 1024, r[n - 1] / 1024, growth
    vpeak = 0; for (j = i; j < n; j++) if (v[j] > vpeak) vpeak = v[j]
    if (vpeak > 0) {
      vgrowth = vpeak - v[i]
      printf "[soak] device memory: %d MiB after warm-up, peak %d MiB, last %d MiB, growth %+d MiB\n",
        v[i], vpeak, v[n - 1], vgrowth
    }
    if (growth > max) { printf "[soak] RSS grew by more than %d MiB\n", max; exit 1 }
    if (vpeak > 0 && vgrowth > max) { printf "[soak] device memory grew by more than %d MiB\n", max; exit 1 }
  }' "$out/soak-rss.csv"
