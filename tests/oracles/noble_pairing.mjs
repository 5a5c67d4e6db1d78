// Oracle for tests/pairing: the reduced optimal ate pairing e([a]G1, [b]G2)
// computed by @noble/curves (an independent BLS12-381 implementation).
//
// usage: node noble_pairing.mjs a1 b1 [a2 b2 ...]   (decimal, or hex with 0x)
// prints one line per pair:
//   "<a as given> <b as given> <12 coefficients>"
// each coefficient a canonical F_p element as 96 lowercase hex digits
// (48 bytes big-endian, no 0x), in the order
//   c0.c0.c0 c0.c0.c1 c0.c1.c0 c0.c1.c1 c0.c2.c0 c0.c2.c1
//   c1.c0.c0 c1.c0.c1 c1.c1.c0 c1.c1.c1 c1.c2.c0 c1.c2.c1
// i.e. f = C0 + C1 w, C_i = c0 + c1 v + c2 v^2, each c_j = c0 + c1 u.
// noble's tower is the same as starzk's (ff/fp12.hpp): u^2 = -1,
// v^3 = u + 1 (Fp6 mulByNonresidue is (xi c2, c0, c1)), w^2 = v (Fp12 mul
// folds c1 b1 through Fp6.mulByNonresidue), so the coefficients compare as is.
// Scalars are reduced mod r; a zero scalar gives the point at infinity, whose
// pairing is 1 (noble refuses infinity, so that case is answered here).
import { bls12_381 } from '@noble/curves/bls12-381.js';

const r = bls12_381.fields.Fr.ORDER;
const Fp12 = bls12_381.fields.Fp12;
const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const fp = (x) => x.toString(16).padStart(96, '0');
const fp6 = (c) => [c.c0.c0, c.c0.c1, c.c1.c0, c.c1.c1, c.c2.c0, c.c2.c1].map(fp);

const args = process.argv.slice(2);
if (args.length % 2 !== 0) {
  console.error('usage: node noble_pairing.mjs a1 b1 [a2 b2 ...]');
  process.exit(2);
}
for (let i = 0; i < args.length; i += 2) {
  const a = BigInt(args[i]) % r;
  const b = BigInt(args[i + 1]) % r;
  const e = a === 0n || b === 0n ? Fp12.ONE
      : bls12_381.pairing(G1.BASE.multiply(a), G2.BASE.multiply(b));
  console.log([args[i], args[i + 1], ...fp6(e.c0), ...fp6(e.c1)].join(' '));
}
