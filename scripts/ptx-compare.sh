#!/usr/bin/env bash
# Whether a change leaves the device code as it was: compiles CUDA sources of
# the working tree and of an earlier commit to PTX (sm_90, the flags of the
# Release build) and compares them, here, without a GPU.
#
#   scripts/ptx-compare.sh COMMIT [FILE.cu ...]   # default: every cuda/*.cu
#
# For a refactor of device code (a formula moved, a name changed) identical
# PTX means identical kernels: the same results and the same speed, so the
# GPU tests and benchmarks need not wait for device time to trust it. Names
# and debug information are left out of the comparison: line markers
# (.loc, .file), comments, the per-file hashes nvcc puts in internal names,
# the byte strings of the debug sections, and the renaming `ptx-compare`
# is told of in STARZK_PTX_RENAMES ("old=new old2=new2": applied to the
# base's PTX). Prints one line per file and exits 1 when any differs; the
# PTX and the normalised listings stay in $STARZK_PTX_DIR (default
# /tmp/starzk-ptx) for a diff.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
commit=${1:?usage: ptx-compare.sh COMMIT [FILE.cu ...]}
shift
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -x "$nvcc" ] || { echo "ptx-compare: no nvcc at $nvcc (set NVCC)" >&2; exit 2; }
out=${STARZK_PTX_DIR:-/tmp/starzk-ptx}
base="$out/base"
rm -rf "$base" && mkdir -p "$base"
git -C "$root" archive "$commit" | tar -x -C "$base"

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for f in "$root"/cuda/*.cu; do files+=("$(basename "$f")"); done
fi

renames=()
for r in ${STARZK_PTX_RENAMES:-}; do renames+=(-e "s/${r%%=*}/${r#*=}/g"); done

# nvcc's per-file internal namespaces (_INTERNAL_<hash>_..., _GLOBAL__N_
# _<hash>_..._cu_<hash>[_<n>]) become _INTERNAL_X / _GLOBAL__N__X, each
# taken by the length that prefixes it in the mangled name, so that neither
# the hashes, nor a suffix nvcc adds, nor the length itself makes a
# difference; repeated until nothing changes (such a name may hold another).
internal_names='my $p; do { $p = $_; s/(\d+)(_(INTERNAL|GLOBAL__N_)_[0-9a-f]{8}_\w*)(?(?{ length($2) >= $1 })|(*FAIL))/"_$3_X" . substr($2, $1)/ge } while ($_ ne $p);'

# PTX of one source, then the lines that carry code.
normalise() {  # tree file.cu side
  local tree=$1 f=$2 side=$3 stem=${2%.cu}
  "$nvcc" -I"$tree" -I"$tree/src" --expt-relaxed-constexpr -O3 -DNDEBUG -arch=sm_90 -diag-suppress=1675 \
    -std=c++20 -x cu -ptx "$tree/cuda/$f" -o "$out/$stem.$side.ptx"
  grep -v -E '^\s*\.loc|^\s*\.file|^\s*//|^\s*$|^\s*\.b8 [0-9]' "$out/$stem.$side.ptx" |
    perl -pe "$internal_names" |
    { if [ "$side" = base ] && [ ${#renames[@]} -gt 0 ]; then sed "${renames[@]}"; else cat; fi; } \
      >"$out/$stem.$side.code"
}

status=0
for f in "${files[@]}"; do
  stem=${f%.cu}
  if [ ! -f "$base/cuda/$f" ]; then
    echo "ptx-compare: $f: not in $commit"
    status=1
    continue
  fi
  normalise "$base" "$f" base
  normalise "$root" "$f" new
  n=$(diff "$out/$stem.base.code" "$out/$stem.new.code" | grep -c '^[<>]' || true)
  if [ "$n" = 0 ]; then
    echo "ptx-compare: $f: same code ($(wc -l <"$out/$stem.new.code") lines)"
  else
    echo "ptx-compare: $f: $n lines differ (diff $out/$stem.base.code $out/$stem.new.code)"
    status=1
  fi
done
exit $status
