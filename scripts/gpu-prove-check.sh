#!/usr/bin/env bash
# The README's main flow with every proof forced onto the GPU
# (`starzk prove --gpu on`), for scripts/gpu-run.sh: the snarkjs key and a
# development key made by the GPU setup path, each proof checked by our
# verifier, and a tampered proof that must fail. Exits non-zero on the first
# failure.
#
#   scripts/gpu-prove-check.sh BUILD_DIR OUT_DIR
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
z="${1:?usage: gpu-prove-check.sh BUILD_DIR OUT_DIR}/bin/starzk"
pc=${2:?usage: gpu-prove-check.sh BUILD_DIR OUT_DIR}
fx="$root/tests/fixtures/multiplier"
mkdir -p "$pc"

"$z" prove --gpu on --zkey "$fx/circuit.zkey" --wtns "$fx/witness.wtns" --r1cs "$fx/circuit.r1cs" \
  --proof "$pc/proof.json" --public "$pc/public.json"
"$z" verify --vkey "$fx/verification_key.json" --proof "$pc/proof.json" --public "$pc/public.json"

"$z" setup --gpu on --r1cs "$fx/circuit.r1cs" --params "$pc/dev.params" --vkey "$pc/dev_vk.json"
"$z" prove --gpu on --params "$pc/dev.params" --circuit "$fx/circuit.r1cs" --wtns "$fx/witness.wtns" \
  --out "$pc/proof.bin" --public "$pc/public_dev.json"
"$z" verify --params "$pc/dev.params" --proof "$pc/proof.bin" --public "$pc/public_dev.json"

# One flipped bit in the middle of the proof must make it fail.
cp "$pc/proof.bin" "$pc/tampered.bin"
byte=$(od -An -tu1 -j100 -N1 "$pc/tampered.bin" | tr -d ' ')
printf "\\$(printf '%03o' $(( byte ^ 1 )))" | dd of="$pc/tampered.bin" bs=1 seek=100 conv=notrunc status=none
if "$z" verify --params "$pc/dev.params" --proof "$pc/tampered.bin" --public "$pc/public_dev.json"; then
  echo "gpu-prove-check: a tampered proof verified" >&2; exit 1
fi
echo "gpu-prove-check: OK"
