// fr_x8_t: eight F_r elements side by side in the 52-bit AVX-512 IFMA
// lanes, for the NTT's butterflies (ntt/ntt_lanes.cpp).
//
// Why: a butterfly is one F_r product and two sums, and the product is
// most of a scalar butterfly's time; the 8-lane product here is about a
// hundred multiply-adds for eight of them (docs/benchmarks.md, "The CPU
// prover in lanes").
//
// Representation: a lane holds the integer V of an fr_t as it is stored
// (its Montgomery form, V ≡ a·2^256 mod r) in five limbs of 52 bits (260
// bits of room), not necessarily reduced: every value here is below 2r.
// Loading an fr_t is a change of radix only, no product. The product is
// Montgomery's with R = 2^260: mul(V, W) = V·W·2^−260 mod r, and the NTT
// keeps its constants (twiddles, n^−1) in the "twiddle form" W ≡ w·2^260,
// so mul(V, W) ≡ a·2^256·w: the fr_t form of a·w. Two fr_t-form values
// are never multiplied together.
//
// Bounds (r < 2^255, so 4r < 2^257 < 2^260):
//   product  V·W·2^−260 + (< r) with V, W < 2r: V·W < 4r² < r·2^257, so the
//            result is below r/8 + r < 2r; no subtraction;
//   a + b    < 4r, then 2r taken off where that leaves it ≥ 0: < 2r;
//   a − b    a − b + 2r in (0, 4r), the same subtraction: < 2r.
// Column sums of a product stay below 2^58 (ten 52-bit halves per column
// and round), far from the 64-bit lanes' limit.
//
// Target: like fp_x8_ifma.hpp (whose switch, ff_path::wide(), and target
// macros this uses), the functions are `inline` with STARZK_IFMA_TARGET,
// meant to be inlined into a flattened caller compiled for that target.
#pragma once

#include <array>
#include <cstdint>

#include "ff/fp_x8_ifma.hpp"
#include "ff/fr.hpp"

namespace starzk::ifma {

using fr52_t = std::array<uint64_t, 5>;

// A 4 x 64-bit integer (< 2^256) as five 52-bit limbs, and back.
constexpr fr52_t fr_to_radix52(const std::array<uint64_t, 4>& v) {
  return {v[0] & limb_mask, ((v[0] >> 52) | (v[1] << 12)) & limb_mask, ((v[1] >> 40) | (v[2] << 24)) & limb_mask,
          ((v[2] >> 28) | (v[3] << 36)) & limb_mask, v[3] >> 16};
}
constexpr std::array<uint64_t, 4> fr_from_radix52(const fr52_t& l) {
  return {l[0] | (l[1] << 52), (l[1] >> 12) | (l[2] << 40), (l[2] >> 24) | (l[3] << 28), (l[3] >> 36) | (l[4] << 16)};
}

struct fr_consts {
  static constexpr auto r = fr_t::modulus;
  static constexpr fr52_t r52 = fr_to_radix52(r);
  static constexpr fr52_t two_r52 = [] {  // 2r < 2^256: no carry out
    auto t = r;
    limbs::add(t, r, r);
    return fr_to_radix52(t);
  }();
  static constexpr uint64_t rinv52 = limbs::neg_inv64(r[0]) & limb_mask;  // −r^−1 mod 2^52
  // An fr_t-form value V times this, divided by 2^260, is V·2^4: the
  // twiddle form of the same element (w·2^256 -> w·2^260).
  static constexpr fr52_t to_twiddle52 = fr_to_radix52(limbs::pow2_mod(264, r));
};
static_assert(fr_from_radix52(fr_to_radix52(fr_t::modulus)) == fr_t::modulus);
static_assert((fr_consts::rinv52 * fr_consts::r52[0]) % (uint64_t(1) << 52) == limb_mask, "r·rinv52 = −1 mod 2^52");

// Test hooks on plain arrays, lane j in element j (fr_x8_ifma.cpp; call
// only where ff_path::wide()). a: fr_t values as stored, any 256-bit
// integer below 2r standing for its residue; w: elements whose twiddle form
// the hook makes first. Results canonical fr_t.
void fr_mul_tw_x8(fr_t* out, const fr_t* a, const fr_t* w);  // a·w
void fr_add_x8(fr_t* out, const fr_t* a, const fr_t* b);     // a + b
void fr_sub_x8(fr_t* out, const fr_t* a, const fr_t* b);     // a − b

#if STARZK_FF_IFMA

#define SZK_IFMA_R STARZK_IFMA_TARGET inline

struct fr_x8_t {
  __m512i l[5];  // l[i] lane j: bits 52i .. 52i + 51 of lane j's value (< 2r)

  SZK_IFMA_R static fr_x8_t broadcast(const fr52_t& c) {
    fr_x8_t x;
#pragma GCC unroll 5
    for (unsigned i = 0; i < 5; ++i) x.l[i] = _mm512_set1_epi64(int64_t(c[i]));
    return x;
  }

  // Logical shifts; the zero-masked forms with every lane selected are the
  // plain instructions, whose intrinsics trip GCC 12's -Wuninitialized.
  SZK_IFMA_R static __m512i shl(__m512i x, unsigned n) { return _mm512_maskz_slli_epi64(__mmask8(0xff), x, n); }
  SZK_IFMA_R static __m512i shr(__m512i x, unsigned n) { return _mm512_maskz_srli_epi64(__mmask8(0xff), x, n); }

  // The four 64-bit limbs of eight fr_t (limb k of lane j in x[k]) in
  // radix 2^52, and back (the value must be below 2^256).
  SZK_IFMA_R static fr_x8_t from_limbs64(const __m512i* x) {
    const __m512i m = _mm512_set1_epi64(int64_t(limb_mask));
    fr_x8_t v;
    v.l[0] = _mm512_and_si512(x[0], m);
    v.l[1] = _mm512_and_si512(_mm512_or_si512(shr(x[0], 52), shl(x[1], 12)), m);
    v.l[2] = _mm512_and_si512(_mm512_or_si512(shr(x[1], 40), shl(x[2], 24)), m);
    v.l[3] = _mm512_and_si512(_mm512_or_si512(shr(x[2], 28), shl(x[3], 36)), m);
    v.l[4] = shr(x[3], 16);
    return v;
  }
  SZK_IFMA_R void to_limbs64(__m512i* x) const {
    x[0] = _mm512_or_si512(l[0], shl(l[1], 52));
    x[1] = _mm512_or_si512(shr(l[1], 12), shl(l[2], 40));
    x[2] = _mm512_or_si512(shr(l[2], 24), shl(l[3], 28));
    x[3] = _mm512_or_si512(shr(l[3], 36), shl(l[4], 16));
  }

  // Eight consecutive fr_t in and out (out canonical only if the value is):
  // the four 64-byte rows R_i = (e_2i limbs 0-3, e_2i+1 limbs 0-3) hold limb
  // k of element 2i at R_i[k] and of element 2i + 1 at R_i[4 + k]. load:
  // limb k of e_0..e_7 = (R_0[k], R_0[4+k], R_1[k], R_1[4+k]) from one
  // two-source permutation, the same from R_2, R_3, the two halves joined,
  // then the change of radix. store the other way: pairs (x_0, x_1) and
  // (x_2, x_3) interleaved (unpack), then 128-bit quarters shuffled into
  // the rows. (The zero-masked shuffles with every lane are the plain
  // instructions, whose intrinsics trip GCC 12's -Wuninitialized.)
  static constexpr __mmask8 all8 = 0xff;
  SZK_IFMA_R static fr_x8_t load(const fr_t* p) {
    const auto* q = reinterpret_cast<const uint64_t*>(p);
    const __m512i r0 = _mm512_loadu_si512(q), r1 = _mm512_loadu_si512(q + 8), r2 = _mm512_loadu_si512(q + 16),
                  r3 = _mm512_loadu_si512(q + 24);
    __m512i x[4];
#pragma GCC unroll 4
    for (unsigned k = 0; k < 4; ++k) {
      // Lanes 0-3: first[k], first[4 + k], second[k], second[4 + k] (8 + i: the second source).
      const __m512i idx = _mm512_set_epi64(0, 0, 0, 0, 12 + k, 8 + k, 4 + k, k);
      const __m512i lo = _mm512_permutex2var_epi64(r0, idx, r1), hi = _mm512_permutex2var_epi64(r2, idx, r3);
      x[k] = _mm512_maskz_shuffle_i64x2(all8, lo, hi, 0x44);  // lo's quarters 0, 1 then hi's 0, 1
    }
    return from_limbs64(x);
  }

  SZK_IFMA_R static void store(fr_t* p, const fr_x8_t& v) {
    __m512i x[4];
    v.to_limbs64(x);
    const __m512i lo01 = _mm512_maskz_unpacklo_epi64(all8, x[0], x[1]),
                  hi01 = _mm512_maskz_unpackhi_epi64(all8, x[0], x[1]);
    const __m512i lo23 = _mm512_maskz_unpacklo_epi64(all8, x[2], x[3]),
                  hi23 = _mm512_maskz_unpackhi_epi64(all8, x[2], x[3]);
    // Quarter i of lo01 is (x0[2i], x1[2i]), of hi01 (x0[2i+1], x1[2i+1]); row
    // i is (lo01_i, lo23_i, hi01_i, hi23_i).
    const __m512i a = _mm512_maskz_shuffle_i64x2(all8, lo01, lo23, 0x44),
                  b = _mm512_maskz_shuffle_i64x2(all8, hi01, hi23, 0x44);
    const __m512i c = _mm512_maskz_shuffle_i64x2(all8, lo01, lo23, 0xEE),
                  d = _mm512_maskz_shuffle_i64x2(all8, hi01, hi23, 0xEE);
    auto* q = reinterpret_cast<uint64_t*>(p);
    _mm512_storeu_si512(q, _mm512_maskz_shuffle_i64x2(all8, a, b, 0x88));
    _mm512_storeu_si512(q + 8, _mm512_maskz_shuffle_i64x2(all8, a, b, 0xDD));
    _mm512_storeu_si512(q + 16, _mm512_maskz_shuffle_i64x2(all8, c, d, 0x88));
    _mm512_storeu_si512(q + 24, _mm512_maskz_shuffle_i64x2(all8, c, d, 0xDD));
  }

  // This value (an element in the fr_t form) in the twiddle form.
  SZK_IFMA_R fr_x8_t twiddle_form() const { return *this * broadcast(fr_consts::to_twiddle52); }

  SZK_IFMA_R static void normalise(__m512i* t) { lanes52::normalise<5>(t); }

  // s (normalised, s < 2m) -> s − m where that is ≥ 0, else s.
  SZK_IFMA_R static fr_x8_t sub_if_above(__m512i* s, const fr52_t& m) {
    fr_x8_t d;
    lanes52::sub_if_above<5>(d.l, s, m);
    return d;
  }

  // The canonical value (< r), for the way out.
  SZK_IFMA_R fr_x8_t canonical() const {
    fr_x8_t c = *this;
    return sub_if_above(c.l, fr_consts::r52);
  }

  SZK_IFMA_R friend fr_x8_t operator+(const fr_x8_t& a, const fr_x8_t& b) {
    __m512i s[5];
#pragma GCC unroll 5
    for (unsigned i = 0; i < 5; ++i) s[i] = _mm512_add_epi64(a.l[i], b.l[i]);
    normalise(s);
    return sub_if_above(s, fr_consts::two_r52);
  }
  SZK_IFMA_R friend fr_x8_t operator-(const fr_x8_t& a, const fr_x8_t& b) {
    __m512i s[5];
#pragma GCC unroll 5
    for (unsigned i = 0; i < 5; ++i)
      s[i] = _mm512_add_epi64(_mm512_sub_epi64(a.l[i], b.l[i]), _mm512_set1_epi64(int64_t(fr_consts::two_r52[i])));
    normalise(s);
    return sub_if_above(s, fr_consts::two_r52);
  }

  // a·b·2^−260 (see the file comment): the 25 partial products into ten
  // columns, then five rounds of Montgomery reduction (lanes52::columns,
  // lanes52::redc in fp_x8_ifma.hpp).
  SZK_IFMA_R friend fr_x8_t operator*(const fr_x8_t& a, const fr_x8_t& b) {
    __m512i z[10];
    lanes52::columns<5>(z, a.l, b.l);
    fr_x8_t r;
    lanes52::redc<5>(r.l, z, fr_consts::r52, fr_consts::rinv52);
    return r;
  }

  // Lane j takes lane idx[j] of x (one permutation per limb).
  SZK_IFMA_R static fr_x8_t permute(const fr_x8_t& x, __m512i idx) {
    fr_x8_t r;
#pragma GCC unroll 5
    for (unsigned i = 0; i < 5; ++i) r.l[i] = _mm512_maskz_permutexvar_epi64(__mmask8(0xff), idx, x.l[i]);
    return r;
  }
  // Lanes of `m` from b, the others from a.
  SZK_IFMA_R static fr_x8_t blend(__mmask8 m, const fr_x8_t& a, const fr_x8_t& b) {
    fr_x8_t r;
#pragma GCC unroll 5
    for (unsigned i = 0; i < 5; ++i) r.l[i] = _mm512_mask_blend_epi64(m, a.l[i], b.l[i]);
    return r;
  }
};

#endif  // STARZK_FF_IFMA

}  // namespace starzk::ifma
