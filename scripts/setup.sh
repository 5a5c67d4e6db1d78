#!/usr/bin/env bash
# starzk set-up: everything a fresh Debian 12 machine needs to build, run and
# test starzk, from Debian's packages and the npm registry alone.
#
#   1. Debian packages: compilers, CMake, hwloc, OpenMPI, GoogleTest, Google
#      Benchmark, the small header libraries (CLI11, nlohmann-json, toml++,
#      spdlog/fmt), GMP (a big-integer test oracle), Node.js for the oracles,
#      clang with libFuzzer (the fuzz harnesses, scripts/fuzz.sh).
#   2. StarPU 1.3.10 with CUDA (when nvcc is present), built from Debian's
#      source package into a per-machine prefix and reused when present.
#      Debian's own libstarpu is CPU-only and capped at 4 workers, so it is
#      never installed.
#   3. The npm test oracles (snarkjs, circom2, circomlib, @noble/curves),
#      installed locally under tests/oracles/node_modules.
#
# Idempotent: every step checks before it acts. Fails loudly with the reason.
# Environment:
#   STARZK_DEPS   where StarPU is built and kept (default ~/.cache/starzk)
#   STARZK_SKIP_NPM=1   skip the npm oracles
#   STARZK_STARPU_FXT=1 also build a second StarPU, the same one with FxT
#                 tracing (--with-fxt, Debian's libfxt-dev), into
#                 $STARZK_DEPS/starpu-1.3.10-fxt; the default StarPU and
#                 .starzk-env stay as they are (docs/install.md, "FxT traces")
#   STARZK_STARPU_SIMGRID=1 also build a StarPU that simulates its machine
#                 (--enable-simgrid, Debian's libsimgrid-dev, no MPI) into
#                 $STARZK_DEPS/starpu-1.3.10-simgrid (docs/install.md,
#                 "Simulated machines")
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
deps=${STARZK_DEPS:-$HOME/.cache/starzk}
starpu_version=1.3.10
starpu_prefix="$deps/starpu-$starpu_version"

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@";
  else die "need root (or sudo) to run: $*"; fi
}

# ---- 1. Debian packages -----------------------------------------------------
packages=(build-essential cmake ninja-build pkg-config git ca-certificates python3
  libhwloc-dev hwloc libopenmpi-dev openmpi-bin
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libspdlog-dev libfmt-dev
  libgmp-dev dpkg-dev gnuplot-nox slurm-wlm munge bc
  clang libclang-rt-dev  # clang + libFuzzer: the fuzz harnesses (scripts/fuzz.sh)
  clang-format)          # the style check (scripts/format-check.sh)
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq || die "apt-get update failed"
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
else
  say "Debian packages present"
fi
if dpkg-query -W -f='${Status}' libstarpu-dev 2>/dev/null | grep -q "install ok installed"; then
  die "Debian's libstarpu-dev is installed: it shares the soname of our StarPU but not its layouts; remove it (apt-get remove libstarpu-dev libstarpu-1.3-9)"
fi

# ---- 2. StarPU with CUDA ----------------------------------------------------
cuda_dir=${CUDA_HOME:-/usr/local/cuda}
# With CUDA, StarPU is built without cuBLAS and cuSPARSE, which starzk does
# not use and whose loading slows every process start
# (scripts/patch-starpu-no-cublas.sh).
if [ -x "$cuda_dir/bin/nvcc" ]; then
  cuda_flags=(--enable-cuda "--with-cuda-dir=$cuda_dir" CPPFLAGS=-DSTARZK_STARPU_NO_CUBLAS
    ac_cv_lib_cusparse_cusparseCreate=no)
  want_cuda=1
else cuda_flags=(--disable-cuda); want_cuda=0; fi
variant="cuda=$want_cuda cublas=no"

# build_starpu PREFIX VARIANT TAG [CONFIGURE FLAGS...]: Debian's source
# package, patched, configured with starzk's flags plus the given ones,
# installed in PREFIX (building in $deps/build-TAG, logs $deps/TAG-*.log);
# skipped when PREFIX holds a complete build of the same VARIANT.
build_starpu() {
  local prefix=$1 want=$2 tag=$3
  shift 3
  if [ -f "$prefix/.starzk-complete" ] && [ "$(cat "$prefix/.starzk-complete")" = "$want" ]; then
    say "StarPU $starpu_version present in $prefix"
    return
  fi
  say "building StarPU $starpu_version ($want) into $prefix (about 3-5 minutes)"
  src_dir="$deps/src"
  mkdir -p "$src_dir"
  if [ ! -d "$src_dir/starpu-$starpu_version+dfsg" ]; then
    if ! ls /etc/apt/sources.list.d/*starzk-src* >/dev/null 2>&1; then
      uris=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
      [ -n "$uris" ] || uris=http://deb.debian.org/debian
      printf 'Types: deb-src\nURIs: %s\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uris" \
        | as_root tee /etc/apt/sources.list.d/starzk-src.sources >/dev/null
      as_root apt-get update -qq || die "apt-get update (deb-src) failed"
    fi
    (cd "$src_dir" && apt-get source -qq -t bookworm "starpu=$starpu_version+dfsg-2" >/dev/null 2>&1) \
      || (cd "$src_dir" && apt-get source -qq "starpu=$starpu_version+dfsg-2") \
      || die "apt-get source starpu=$starpu_version+dfsg-2 failed"
  fi
  s="$src_dir/starpu-$starpu_version+dfsg"
  "$here/patch-starpu-cuda13.sh" "$s"
  "$here/patch-starpu-no-cublas.sh" "$s"
  b="$deps/build-$tag"
  rm -rf "$b" && mkdir -p "$b"
  (cd "$b" && "$s/configure" --prefix="$prefix" "${cuda_flags[@]}" \
      --disable-opencl --disable-socl --disable-fortran --disable-build-doc \
      --disable-build-examples --disable-build-tests --enable-mpi \
      --enable-maxcpus=128 --enable-maxcudadev=8 --enable-blas-lib=none \
      --disable-starpufft "$@" > "$deps/$tag-configure.log" 2>&1) \
    || die "StarPU configure failed: see $deps/$tag-configure.log"
  (cd "$b" && make -j"$(nproc)" > "$deps/$tag-make.log" 2>&1 && make install >> "$deps/$tag-make.log" 2>&1) \
    || die "StarPU build failed: see $deps/$tag-make.log"
  echo "$want" > "$prefix/.starzk-complete"
  rm -rf "$b"
  say "StarPU installed in $prefix"
}

build_starpu "$starpu_prefix" "$variant" starpu

# The optional FxT twin (STARZK_STARPU_FXT=1): the same StarPU, recording
# every task, transfer and scheduler event into a prof_file_* trace that
# starpu_fxt_tool turns into Paje (ViTE) and the tasks.rec/dag.dot files.
# Its own prefix, so the default build and what CI tests never change.
if [ "${STARZK_STARPU_FXT:-0}" = 1 ]; then
  if ! dpkg-query -W -f='${Status}' libfxt-dev 2>/dev/null | grep -q "install ok installed"; then
    say "installing Debian package: libfxt-dev"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq || die "apt-get update failed"
    as_root apt-get install -y -qq --no-install-recommends libfxt-dev >/dev/null || die "apt-get install libfxt-dev failed"
  fi
  build_starpu "$starpu_prefix-fxt" "$variant fxt=1" starpu-fxt --with-fxt
  say "FxT StarPU: build starzk against it with STARPU_PREFIX=$starpu_prefix-fxt STARZK_BUILD_DIR=build-fxt scripts/build.sh"
fi

# The optional SimGrid twin (STARZK_STARPU_SIMGRID=1): the same StarPU
# sources, configured to simulate the machine that a platform file and
# calibrated performance models describe (tasks take their models' times,
# transfers the bus's) instead of running on this one. StarPU-MPI under
# SimGrid needs SMPI and static libraries, so this one has no MPI.
if [ "${STARZK_STARPU_SIMGRID:-0}" = 1 ]; then
  if ! dpkg-query -W -f='${Status}' libsimgrid-dev 2>/dev/null | grep -q "install ok installed"; then
    say "installing Debian package: libsimgrid-dev"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq || die "apt-get update failed"
    as_root apt-get install -y -qq --no-install-recommends libsimgrid-dev >/dev/null \
      || die "apt-get install libsimgrid-dev failed"
  fi
  build_starpu "$starpu_prefix-simgrid" "$variant simgrid=1" starpu-simgrid --enable-simgrid --disable-mpi
  say "SimGrid StarPU in $starpu_prefix-simgrid (docs/install.md, \"Simulated machines\")"
fi

# ---- 3. npm test oracles ----------------------------------------------------
if [ "${STARZK_SKIP_NPM:-0}" != 1 ]; then
  o="$root/tests/oracles"
  if [ -f "$o/package.json" ]; then
    if [ ! -d "$o/node_modules/snarkjs" ] || [ "$o/package.json" -nt "$o/node_modules/.starzk-stamp" ]; then
      say "installing npm oracles into tests/oracles/node_modules"
      (cd "$o" && npm install --no-audit --no-fund --loglevel=error >/dev/null) || die "npm install in tests/oracles failed"
      touch "$o/node_modules/.starzk-stamp"
    else
      say "npm oracles present"
    fi
  fi
fi

printf 'STARPU_PREFIX=%s\n' "$starpu_prefix" > "$root/.starzk-env"
say "done (StarPU prefix recorded in .starzk-env)"
