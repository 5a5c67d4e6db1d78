// Oracle for tests/ec: compressed zcash encodings of [k]G1 and [k]G2 computed
// by @noble/curves (an independent BLS12-381 implementation).
//
// usage: node noble_ec.mjs k1 k2 ...   (k decimal, or hex with 0x; 0 <= k)
// prints one line per scalar: "<k as given> <[k]G1 hex, 48 bytes> <[k]G2 hex, 96 bytes>".
// k is reduced mod r first, so k = r prints the point at infinity.
import { bls12_381 } from '@noble/curves/bls12-381.js';

const r = bls12_381.fields.Fr.ORDER;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const hex = (bytes) => Buffer.from(bytes).toString('hex');
const times = (P, k) => (k === 0n ? P.ZERO : P.BASE.multiply(k));

for (const arg of process.argv.slice(2)) {
  const k = BigInt(arg) % r;
  console.log(`${arg} ${hex(times(G1, k).toBytes(true))} ${hex(times(G2, k).toBytes(true))}`);
}
