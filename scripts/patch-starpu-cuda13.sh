#!/usr/bin/env bash
# Two source fixes that let StarPU 1.3.10 compile against CUDA 13 (both are
# no-ops for older CUDA, so the patched tree builds everywhere):
#  1. CUDA 13 removed cudaDeviceProp::computeMode; driver_cuda.c reads it to
#     refuse EXCLUSIVE-THREAD mode. Read the same value through
#     cudaDeviceGetAttribute(cudaDevAttrComputeMode) instead.
#  2. starpu_cublas.c includes cublas.h and then cublas_v2.h, which CUDA 13
#     forbids with an #error; undefine cublas.h's guard between the two.
# Idempotent: a marker comment shows a file was already patched.
set -euo pipefail
s=${1:?usage: patch-starpu-cuda13.sh STARPU_SOURCE_DIR}
drv="$s/src/drivers/cuda/driver_cuda.c"
cub="$s/src/drivers/cuda/starpu_cublas.c"
[ -f "$drv" ] && [ -f "$cub" ] || { echo "patch-starpu-cuda13: $s is not a StarPU 1.3 source tree" >&2; exit 1; }

if ! grep -q 'starzk-cuda13' "$drv"; then
  python3 - "$drv" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
old = "\tif (props[devid].computeMode == cudaComputeModeExclusive)\n"
new = ("\t/* starzk-cuda13: computeMode left cudaDeviceProp in CUDA 13 */\n"
       "\tint starzk_compute_mode;\n"
       "#if CUDART_VERSION >= 13000\n"
       "\tcudaDeviceGetAttribute(&starzk_compute_mode, cudaDevAttrComputeMode, devid);\n"
       "#else\n"
       "\tstarzk_compute_mode = props[devid].computeMode;\n"
       "#endif\n"
       "\tif (starzk_compute_mode == cudaComputeModeExclusive)\n")
if t.count(old) != 1:
    sys.exit("patch-starpu-cuda13: computeMode test not found once in " + p)
open(p, "w").write(t.replace(old, new))
PY
fi

if ! grep -q 'starzk-cuda13' "$cub"; then
  python3 - "$cub" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
old = "#include <cublas.h>\n#include <starpu_cublas_v2.h>\n"
new = ("#include <cublas.h>\n"
       "/* starzk-cuda13: CUDA 13 refuses cublas.h then cublas_v2.h */\n"
       "#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000\n#undef CUBLAS_H_\n#endif\n"
       "#include <starpu_cublas_v2.h>\n")
if t.count(old) != 1:
    sys.exit("patch-starpu-cuda13: cublas includes not found in " + p)
open(p, "w").write(t.replace(old, new))
PY
fi
echo "[setup] StarPU sources patched for CUDA 13"
