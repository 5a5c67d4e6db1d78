// fp_x8_t: eight F_p elements side by side, one per 64-bit lane of an
// AVX-512 register, multiplied with the 52-bit IFMA instructions; and the
// run-time switch that says whether this CPU may run them.
//
// Why: a subgroup check is a fixed chain of ~150 point operations, the same
// for every point and free of branches (ec/subgroup_x8.cpp), so eight points
// can walk it in lock step, lane i holding point i. vpmadd52luq/vpmadd52huq
// multiply eight pairs of 52-bit numbers and add the low/high 52 bits of the
// 104-bit products to eight 64-bit accumulators in one instruction.
//
// Representation: a value v of lane j is eight limbs of 52 bits, limb i in
// l[i] lane j (v = sum_i l[i]·2^(52 i), 416 bits of room), in Montgomery form
// with R = 2^416: the element a is held as some v ≡ a·2^416 (mod p) with
// v < bound·p, `bound` a small number kept beside the registers (one for
// all lanes: every lane runs the same operations). Not canonical: equal
// elements may differ by multiples of p, so there is no == here; values
// leave through from_lanes (fp_x8_ifma.cpp), which reduces.
//
// Why so little reduction is needed: the Montgomery product of a and b is
// t = (a·b + k·p) / 2^416 with k < 2^416, so t < a·b/2^416 + p, and
// t < 2p whenever a·b < p·2^416, i.e. the bounds' product is below
// 2^416 / p ≈ 2^35.3 (p has 381 bits): 35 bits of headroom. So products
// end with no subtraction (bound 2), and sums and differences compare
// nothing: a + b adds the bounds, a - b adds k·p (k the power of two at or
// above b's bound) to stay non-negative and adds k. Past 2^16 an operand is
// first brought below 2p by a product with Montgomery's one; the point
// formulas never get there (their bounds stay below 400). Every limb of
// every input to a product is < 2^52 ("normalised"), as the instructions
// read only the low 52 bits of their factors; every operation returns
// normalised limbs (one carry pass, arithmetic shifts, so a negative limb
// of a difference borrows).
//
// Target: the functions are compiled for AVX-512F + IFMA through
// STARZK_IFMA_TARGET (no global -m flag), are plain `inline` (not
// always_inline), and are meant to be inlined into a caller marked
// STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN: the point formulas of
// ec/jacobian.hpp are templates compiled without the target, and GCC only
// inlines the AVX-512 operations into them when a flattened AVX-512 caller
// pulls the whole tree in. Call such a function only where
// ff_path::wide() (or cpu_has_ifma()) is true. Portable translation units
// may include this header: they see the types and never execute them.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>

#include "ff/fp.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#include <immintrin.h>
#define STARZK_FF_IFMA 1
#define STARZK_IFMA_TARGET __attribute__((target("avx512f,avx512ifma,avx512vl,avx512bw")))
#define STARZK_IFMA_FLATTEN __attribute__((flatten))
#else
#define STARZK_FF_IFMA 0
#endif

#if !defined(__CUDACC__)
namespace starzk::ff_path {

// Does this CPU run AVX-512F and IFMA, with the zmm state enabled by the OS
// (XGETBV: XCR0 bits 1, 2 for SSE/AVX and 5, 6, 7 for the opmask and zmm
// registers)? Defined in fp_x8_ifma.cpp.
bool cpu_has_ifma();

// The switch read by the batched subgroup checks: off until initialised.
inline std::atomic<bool> wide_on{false};

// Turn the 8-lane IFMA paths on or off; on only where the CPU has them.
// Returns the state now in force.
inline bool set_wide(bool on) {
  static const bool can = cpu_has_ifma();
  wide_on.store(on && can, std::memory_order_relaxed);
  return wide_on.load(std::memory_order_relaxed);
}
inline bool wide() { return wide_on.load(std::memory_order_relaxed); }

// Start-up choice: on where the CPU has IFMA, unless STARZK_FF_IFMA is off
// or STARZK_FF_PORTABLE is on (util/config.hpp). A bad value means off
// here; the start check refuses it.
inline bool initial_wide_choice() {
  bool on = false;
  try {
    on = !config::get_switch("STARZK_FF_PORTABLE").value_or(false) &&
         config::get_switch("STARZK_FF_IFMA").value_or(true);
  } catch (...) {
  }
  return set_wide(on);
}
inline const bool wide_at_start = initial_wide_choice();

}  // namespace starzk::ff_path
#endif  // !__CUDACC__

namespace starzk::ifma {

constexpr unsigned limb_bits = 52;
constexpr uint64_t limb_mask = (uint64_t(1) << limb_bits) - 1;
using limbs52_t = std::array<uint64_t, 8>;

// A 6 x 64-bit integer (< 2^416) as eight 52-bit limbs.
constexpr limbs52_t to_radix52(const std::array<uint64_t, 6>& v) {
  limbs52_t r{};
  for (unsigned i = 0; i < 8; ++i) {
    const unsigned bit = limb_bits * i, w = bit / 64, s = bit % 64;
    uint64_t x = w < 6 ? v[w] >> s : 0;
    if (s > 64 - limb_bits && w + 1 < 6) x |= v[w + 1] << (64 - s);
    r[i] = x & limb_mask;
  }
  return r;
}

// Eight 52-bit limbs (value < 2^384) back to 6 x 64 bits.
constexpr std::array<uint64_t, 6> from_radix52(const limbs52_t& r) {
  std::array<uint64_t, 6> v{};
  for (unsigned i = 0; i < 8; ++i) {
    const unsigned bit = limb_bits * i, w = bit / 64, s = bit % 64;
    if (w < 6) v[w] |= r[i] << s;
    if (s > 64 - limb_bits && w + 1 < 6) v[w + 1] |= r[i] >> (64 - s);
  }
  return v;
}

// The constants, derived from fp_t's modulus at compile time.
struct consts {
  static constexpr auto p = fp_t::modulus;
  static constexpr limbs52_t p52 = to_radix52(p);
  // -p^-1 mod 2^52: the low 52 bits of -p^-1 mod 2^64.
  static constexpr uint64_t minv52 = limbs::neg_inv64(p[0]) & limb_mask;
  static constexpr limbs52_t one52 = to_radix52(limbs::pow2_mod(416, p));  // 1·2^416 mod p
  // Into the lanes: w = a·2^384 (fp_t's Montgomery form) times 2^448,
  // divided by 2^416, is a·2^416. Out: v = a·2^416 times 2^384, divided by
  // 2^416, is a·2^384.
  static constexpr limbs52_t to_lanes52 = to_radix52(limbs::pow2_mod(448, p));
  static constexpr limbs52_t from_lanes52 = to_radix52(limbs::pow2_mod(384, p));
  // 2^j·p for j = 0..16 (up to 2^397), what subtraction adds.
  static constexpr std::array<limbs52_t, 17> pow2_p52 = [] {
    std::array<limbs52_t, 17> t{};
    for (unsigned j = 0; j < t.size(); ++j) {
      uint64_t carry = 0;
      for (unsigned i = 0; i < 8; ++i) {
        const uint64_t v = (p52[i] << j) + carry;  // p52[i] < 2^52, j <= 16: no overflow
        t[j][i] = v & limb_mask;
        carry = v >> limb_bits;
      }
    }
    return t;
  }();
};
static_assert(from_radix52(to_radix52(fp_t::modulus)) == fp_t::modulus);
static_assert((consts::minv52 * consts::p52[0]) % (uint64_t(1) << 52) == limb_mask, "p52 * minv52 = -1 mod 2^52");

// Test hooks on plain arrays, lane j of each operand in element j
// (fp_x8_ifma.cpp; call only where ff_path::cpu_has_ifma()). Inputs are
// any 384-bit integers standing for their residues in fp_t's Montgomery
// form (values >= p included); outputs are canonical fp_t.
void mul_x8(fp_t* r, const fp_t* a, const fp_t* b);
void sqr_x8(fp_t* r, const fp_t* a);
void add_x8(fp_t* r, const fp_t* a, const fp_t* b);
void sub_x8(fp_t* r, const fp_t* a, const fp_t* b);
void round_trip_x8(fp_t* r, const fp_t* a);
// The same operations on lanes given directly in the vector form (eight
// radix-2^52 limbs each, value < 2p, Montgomery R = 2^416), so tests can
// reach the edges of that form (0, p - 1, p, 2p - 1); results in that form
// (products < 2p, sums and differences < 4p). The repeated_* hooks run n
// additions (r = n·a) or subtractions (r = -n·a) in a row, so the bound
// passes max_bound and the operands get reduced on the way.
void mul_x8_raw(limbs52_t* r, const limbs52_t* a, const limbs52_t* b);
void add_x8_raw(limbs52_t* r, const limbs52_t* a, const limbs52_t* b);
void sub_x8_raw(limbs52_t* r, const limbs52_t* a, const limbs52_t* b);
void repeated_add_x8(fp_t* r, const fp_t* a, unsigned n);
void repeated_sub_x8(fp_t* r, const fp_t* a, unsigned n);

#if STARZK_FF_IFMA

#define SZK_IFMA STARZK_IFMA_TARGET inline

// The radix-2^52 steps of the 8-lane fields, written once for N limbs: F_p
// here (N = 8), F_r in fr_x8_ifma.hpp (N = 5). Registers hold limb i of
// eight values; m is a modulus in radix 2^52 (m[i] < 2^52).
namespace lanes52 {

// x >> 52, arithmetic (a negative limb borrows). The zero-masked form with
// every lane selected is the same instruction; the plain intrinsic trips
// GCC 12's -Wuninitialized on its undefined pass-through operand.
SZK_IFMA __m512i sar52(__m512i x) { return _mm512_maskz_srai_epi64(__mmask8(0xff), x, limb_bits); }

// Carry propagation: limb i keeps its low 52 bits and passes the rest on.
// The value must be in [0, 2^(52 N)); then every limb comes out in [0, 2^52).
template <unsigned N>
SZK_IFMA void normalise(__m512i* t) {
  const __m512i mask = _mm512_set1_epi64(int64_t(limb_mask));
#pragma GCC unroll 16
  for (unsigned i = 0; i + 1 < N; ++i) {
    t[i + 1] = _mm512_add_epi64(t[i + 1], sar52(t[i]));
    t[i] = _mm512_and_si512(t[i], mask);
  }
}

// d = s − m where that is ≥ 0, else s (s normalised, s < 2m): s < m <=>
// s − m < 0 <=> its top limb is negative after the carries.
template <unsigned N>
SZK_IFMA void sub_if_above(__m512i* d, const __m512i* s, const std::array<uint64_t, N>& m) {
#pragma GCC unroll 16
  for (unsigned i = 0; i < N; ++i) d[i] = _mm512_sub_epi64(s[i], _mm512_set1_epi64(int64_t(m[i])));
  normalise<N>(d);
  const __mmask8 below = _mm512_cmplt_epi64_mask(d[N - 1], _mm512_setzero_si512());
#pragma GCC unroll 16
  for (unsigned i = 0; i < N; ++i) d[i] = _mm512_mask_mov_epi64(d[i], below, s[i]);
}

// The N² partial products of a·b into 2N columns z (zeroed here): the low
// half of a_i b_j at column i + j, the high half at i + j + 1.
template <unsigned N>
SZK_IFMA void columns(__m512i* z, const __m512i* a, const __m512i* b) {
#pragma GCC unroll 16
  for (unsigned i = 0; i < 2 * N; ++i) z[i] = _mm512_setzero_si512();
#pragma GCC unroll 16
  for (unsigned i = 0; i < N; ++i) {
#pragma GCC unroll 16
    for (unsigned j = 0; j < N; ++j) {
      z[i + j] = _mm512_madd52lo_epu64(z[i + j], a[i], b[j]);
      z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], a[i], b[j]);
    }
  }
}

// Montgomery reduction of the 2N columns z by R = 2^(52 N): N rounds,
// round i cancelling limb i,
//   k = z_i · minv mod 2^52          (minv = −m^−1 mod 2^52; vpmadd52luq reads z_i mod 2^52)
//   z += k·m·2^(52 i)                (low halves at i + j, high at i + j + 1)
//   z_(i+1) += z_i >> 52             (z_i ≡ 0 mod 2^52 now: its carry moves up)
// then z / R sits in z[N .. 2N), normalised into out.
template <unsigned N>
SZK_IFMA void redc(__m512i* out, __m512i* z, const std::array<uint64_t, N>& m, uint64_t minv) {
  const __m512i mi = _mm512_set1_epi64(int64_t(minv));
#pragma GCC unroll 16
  for (unsigned i = 0; i < N; ++i) {
    const __m512i k = _mm512_madd52lo_epu64(_mm512_setzero_si512(), z[i], mi);
#pragma GCC unroll 16
    for (unsigned j = 0; j < N; ++j) {
      const __m512i mj = _mm512_set1_epi64(int64_t(m[j]));
      z[i + j] = _mm512_madd52lo_epu64(z[i + j], k, mj);
      z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], k, mj);
    }
    z[i + 1] = _mm512_add_epi64(z[i + 1], sar52(z[i]));
  }
#pragma GCC unroll 16
  for (unsigned i = 0; i < N; ++i) out[i] = z[N + i];
  normalise<N>(out);
}

}  // namespace lanes52

struct fp_x8_t {
  __m512i l[8];  // l[i] lane j: bits 52i .. 52i + 51 of lane j's value
  // Every lane's value is below bound·p (the same bound for all lanes: the
  // operations do not depend on the values). Products give bound 2;
  // sums add the bounds. 1 <= bound <= max_bound.
  uint32_t bound;

  // Products need a·b < p·2^416 for a result below 2p, i.e. the bounds'
  // product below 2^416 / p ≈ 2^35.3: bounds up to 2^16 always qualify.
  static constexpr uint32_t max_bound = 1u << 16;

  SZK_IFMA static fp_x8_t broadcast(const limbs52_t& c) {  // c < p
    fp_x8_t r;
#pragma GCC unroll 16
    for (unsigned i = 0; i < 8; ++i) r.l[i] = _mm512_set1_epi64(int64_t(c[i]));
    r.bound = 1;
    return r;
  }
  SZK_IFMA static fp_x8_t zero() {
    fp_x8_t r;
#pragma GCC unroll 16
    for (auto& x : r.l) x = _mm512_setzero_si512();
    r.bound = 1;
    return r;
  }
  SZK_IFMA static fp_x8_t one() { return broadcast(consts::one52); }

  SZK_IFMA static __m512i sar52(__m512i x) { return lanes52::sar52(x); }
  SZK_IFMA static void normalise(__m512i* t) { lanes52::normalise<8>(t); }

  // s normalised with s < 2m -> s mod m: s - m where that is >= 0 (m = p
  // as radix-2^52 limbs: the canonical value, for the way out).
  SZK_IFMA static fp_x8_t reduce_once(const __m512i* s, const limbs52_t& m) {
    fp_x8_t d;
    lanes52::sub_if_above<8>(d.l, s, m);
    d.bound = 1;
    return d;
  }

  // The same element below 2p: the product by R mod p (Montgomery's one).
  // Out of line: the sums call it only past max_bound, which the point
  // formulas never reach (their bounds stay below 400).
  [[gnu::noinline]] SZK_IFMA fp_x8_t reduced() const { return *this * one(); }

  // a + b, limb by limb, then the carries; bound a.bound + b.bound. No
  // comparison with p: the bound says how far the value may be above it.
  SZK_IFMA friend fp_x8_t operator+(const fp_x8_t& a, const fp_x8_t& b) {
    if (a.bound + b.bound > max_bound) [[unlikely]]
      return a.reduced() + b.reduced();
    fp_x8_t s;
#pragma GCC unroll 16
    for (unsigned i = 0; i < 8; ++i) s.l[i] = _mm512_add_epi64(a.l[i], b.l[i]);
    normalise(s.l);
    s.bound = a.bound + b.bound;
    return s;
  }
  // a - b + k·p with k·p >= b (k the power of two at or above b.bound, its
  // limbs from a table), so the value is >= 0; the limbs may be negative
  // before the (arithmetic) carries. Bound a.bound + k.
  SZK_IFMA friend fp_x8_t operator-(const fp_x8_t& a, const fp_x8_t& b) {
    const uint32_t k = std::bit_ceil(b.bound);
    if (a.bound + k > max_bound) [[unlikely]]
      return a.reduced() - b.reduced();
    const limbs52_t& kp = consts::pow2_p52[std::countr_zero(k)];
    fp_x8_t d;
#pragma GCC unroll 16
    for (unsigned i = 0; i < 8; ++i)
      d.l[i] = _mm512_add_epi64(_mm512_sub_epi64(a.l[i], b.l[i]), _mm512_set1_epi64(int64_t(kp[i])));
    normalise(d.l);
    d.bound = a.bound + k;
    return d;
  }
  SZK_IFMA fp_x8_t operator-() const { return zero() - *this; }
  SZK_IFMA fp_x8_t dbl() const { return *this + *this; }

  // Montgomery reduction of a 16-limb column sum z (each column < 2^63, the
  // value < 4p^2 < 2p·2^416): lanes52::redc's eight rounds; z / 2^416 < 2p.
  // (The columns of a product of normalised limbs stay below 2^58.)
  SZK_IFMA static fp_x8_t redc(__m512i* z) {
    fp_x8_t r;
    lanes52::redc<8>(r.l, z, consts::p52, consts::minv52);
    r.bound = 2;
    return r;
  }

  // a·b·2^-416: the 64 partial products into 16 columns, then redc. 128 +
  // 136 multiply-adds.
  SZK_IFMA friend fp_x8_t operator*(const fp_x8_t& a, const fp_x8_t& b) {
    __m512i z[16];
    lanes52::columns<8>(z, a.l, b.l);
    return redc(z);
  }

  // a^2·2^-416: each cross product a_i a_j (i < j) once, the columns
  // doubled, then the squares a_i^2: 72 multiply-adds instead of 128.
  SZK_IFMA fp_x8_t sqr() const {
    __m512i z[16];
#pragma GCC unroll 16
    for (auto& x : z) x = _mm512_setzero_si512();
#pragma GCC unroll 16
    for (unsigned i = 0; i < 8; ++i) {
#pragma GCC unroll 16
      for (unsigned j = i + 1; j < 8; ++j) {
        z[i + j] = _mm512_madd52lo_epu64(z[i + j], l[i], l[j]);
        z[i + j + 1] = _mm512_madd52hi_epu64(z[i + j + 1], l[i], l[j]);
      }
    }
#pragma GCC unroll 16
    for (auto& x : z) x = _mm512_add_epi64(x, x);
#pragma GCC unroll 16
    for (unsigned i = 0; i < 8; ++i) {
      z[2 * i] = _mm512_madd52lo_epu64(z[2 * i], l[i], l[i]);
      z[2 * i + 1] = _mm512_madd52hi_epu64(z[2 * i + 1], l[i], l[i]);
    }
    return redc(z);
  }
};

// Eight fp_t (lane j from in[j], any 384-bit integers) into the vector form,
// and back (canonical). Defined in fp_x8_ifma.cpp.
STARZK_IFMA_TARGET fp_x8_t to_lanes(const fp_t* in);
STARZK_IFMA_TARGET void from_lanes(const fp_x8_t& v, fp_t* out);

#undef SZK_IFMA

#endif  // STARZK_FF_IFMA

}  // namespace starzk::ifma
