// The outside reference for the CPU benchmarks: @noble/curves (BLS12-381 in
// JavaScript) timed on the same machine in the same run as bench_ec and
// bench_pairing, so docs/benchmarks.md can state ratios.
//   node bench/noble_bench.mjs   (from the repository root; needs tests/oracles/node_modules)
import { bls12_381 as bls } from '../tests/oracles/node_modules/@noble/curves/bls12-381.js';

const G1 = bls.G1.Point ?? bls.G1.ProjectivePoint;
const G2 = bls.G2.Point ?? bls.G2.ProjectivePoint;
const r = bls.fields.Fr.ORDER;
const rnd = () => { let x = 0n; for (let i = 0; i < 8; i++) x = (x << 32n) | BigInt(Math.floor(Math.random() * 2 ** 32)); return x % r; };

function time(name, iters, f) {
  f();  // warm-up
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < iters; i++) f();
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / iters;
  console.log(`${name},${us.toFixed(1)}`);
}
const p = G1.BASE.multiply(rnd()), q = G2.BASE.multiply(rnd());
console.log('op,microseconds');
time('g1_mul', 50, () => G1.BASE.multiply(rnd()));
time('g2_mul', 20, () => G2.BASE.multiply(rnd()));
time('pairing', 10, () => bls.pairing(p, q));
