#!/usr/bin/env bash
# StarPU 1.3.10 built without cuBLAS and cuSPARSE. StarPU links both as soon
# as CUDA is enabled, only for starpu_cublas_* and starpu_cusparse_*, which
# a program calls itself to get handles bound to the workers' streams.
# starzk calls neither, and loading libcublasLt (pulled in by libcublas)
# costs every process that links StarPU a few tenths of a second at start,
# GPU or not (docs/benchmarks.md, "Process start"). So:
#  1. the generated configure no longer adds -lcublas to the CUDA link
#     flags (its check that cuBLAS exists stays: a CUDA install without it
#     is still refused);
#  2. starpu_cublas.c, compiled with -DSTARZK_STARPU_NO_CUBLAS, defines
#     starpu_cublas_init, _shutdown and _set_stream as no-ops and
#     starpu_cublas_get_local_handle as NULL;
#  3. cuSPARSE is left out by the configure variable
#     ac_cv_lib_cusparse_cusparseCreate=no (scripts/setup.sh passes it).
# Idempotent: a marker comment shows a file was already patched.
set -euo pipefail
s=${1:?usage: patch-starpu-no-cublas.sh STARPU_SOURCE_DIR}
cfg="$s/configure"
cub="$s/src/drivers/cuda/starpu_cublas.c"
[ -f "$cfg" ] && [ -f "$cub" ] || { echo "patch-starpu-no-cublas: $s is not a StarPU 1.3 source tree" >&2; exit 1; }

if ! grep -q 'starzk-no-cublas' "$cfg"; then
  python3 - "$cfg" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
old = 'STARPU_CUDA_LDFLAGS="$STARPU_CUDA_LDFLAGS -lcublas"'
if t.count(old) < 1:
    sys.exit("patch-starpu-no-cublas: the -lcublas link flag not found in " + p)
t = t.replace(old, 'STARPU_CUDA_LDFLAGS="$STARPU_CUDA_LDFLAGS" # starzk-no-cublas')
open(p, "w").write(t)
PY
fi

if ! grep -q 'starzk-no-cublas' "$cub"; then
  python3 - "$cub" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
stub = """/* starzk-no-cublas: without cuBLAS in the link, the entry points do
 * nothing (starzk never calls them); the original follows the #else. */
#ifdef STARZK_STARPU_NO_CUBLAS
#include <starpu.h>
#include <starpu_cuda.h>
#ifdef STARPU_USE_CUDA
#include <starpu_cublas_v2.h>
#endif
void starpu_cublas_init(void) {}
void starpu_cublas_shutdown(void) {}
void starpu_cublas_set_stream(void) {}
#ifdef STARPU_USE_CUDA
cublasHandle_t starpu_cublas_get_local_handle(void) { return NULL; }
#endif
#else
"""
open(p, "w").write(stub + t + "\n#endif /* STARZK_STARPU_NO_CUBLAS */\n")
PY
fi
echo "[setup] StarPU sources patched to build without cuBLAS and cuSPARSE"
