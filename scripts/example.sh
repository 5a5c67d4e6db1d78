#!/usr/bin/env bash
# The main job on the embedded example, end to end: set up (idempotent),
# build, then prove and verify a small circom circuit two ways:
#   1. with its snarkjs key (tests/fixtures/multiplier): starzk prove, then
#      starzk verify AND snarkjs groth16 verify (an outside verifier);
#   2. with a fresh development key in the bellman/Filecoin convention:
#      starzk setup --params, starzk prove --out proof.bin (192-byte form),
#      starzk verify;
#   3. the same key validated once into a resident cache and the circuit
#      converted to the CSR file, both mmap-loaded: starzk cache, prove, verify.
# Outputs go to ./out/example/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" >/dev/null
build=${STARZK_BUILD_DIR:-$root/build}
starzk="$build/bin/starzk"
fx="$root/tests/fixtures/multiplier"
out="$root/out/example"
mkdir -p "$out"
snarkjs="node $root/tests/oracles/node_modules/snarkjs/build/cli.cjs"

echo "== 1. snarkjs key: prove with starzk, verify with starzk and with snarkjs"
"$starzk" info "$fx/circuit.zkey"
"$starzk" prove --zkey "$fx/circuit.zkey" --wtns "$fx/witness.wtns" --r1cs "$fx/circuit.r1cs" \
  --proof "$out/proof.json" --public "$out/public.json"
"$starzk" verify --vkey "$fx/verification_key.json" --proof "$out/proof.json" --public "$out/public.json"
$snarkjs groth16 verify "$fx/verification_key.json" "$out/public.json" "$out/proof.json"

echo "== 2. development key, bellman/Filecoin convention, 192-byte proof"
"$starzk" setup --r1cs "$fx/circuit.r1cs" --params "$out/dev.params" --vkey "$out/dev_vk.json"
"$starzk" prove --params "$out/dev.params" --circuit "$fx/circuit.r1cs" --wtns "$fx/witness.wtns" \
  --out "$out/proof.bin" --public "$out/public_dev.json"
"$starzk" verify --params "$out/dev.params" --proof "$out/proof.bin" --public "$out/public_dev.json"
echo "== 3. the fast-load path: validate the key once, mmap it afterwards"
"$starzk" cache --params "$out/dev.params" --circuit "$fx/circuit.r1cs" --out "$out/dev.szkc" --csr-out "$out/circuit.szcs"
"$starzk" prove --params "$out/dev.szkc" --circuit "$out/circuit.szcs" --wtns "$fx/witness.wtns" \
  --out "$out/proof_cached.bin" --public "$out/public_cached.json"
"$starzk" verify --params "$out/dev.params" --proof "$out/proof_cached.bin" --public "$out/public_cached.json"
echo "== example done: outputs in $out"
