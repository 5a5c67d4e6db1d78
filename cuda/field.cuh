// Device prime fields for BLS12-381: Fp (12 x 32-bit limbs) and Fr (8 limbs),
// Montgomery form, byte-identical to the host fp_t / fr_t (src/ff), so host
// arrays are copied to the device with a plain cudaMemcpy.
//
// Multiplication is Montgomery's method with 32-bit words, arranged as in
// Emmart, Zheng, Weems, "Faster modular exponentiation using double precision
// floating point arithmetic on the GPU" (ARITH 2018): the partial products
// a_j·b_i of even j and of odd j land in two separate accumulators. Each
// mul.lo/mul.hi pair of one product fills two adjacent words, and the pairs of
// one parity never overlap, so every row is one unbroken PTX carry chain
// (mad.lo.cc / madc.hi.cc) with no extra carry words. The two accumulators
// swap roles after each word of b (the Montgomery shift by 32 bits is a
// renaming, not a move); one final chain merges them. Cost per product:
// 4N^2 32-bit multiply-adds (lo and hi halves of a·b and of m·q; N = 12: 576,
// N = 8: 256, less 4 per word for Fr, whose low limbs make two products of
// m·q adds: 224) + about 3N adds.
// Requires 2m < 2^(32N) (no overflow word): p < 2^381, r < 2^255.
//
// Carries live in the PTX condition code across consecutive asm statements;
// every statement of a chain is asm volatile, so the compiler keeps them in
// order and inserts nothing that would clobber CC between them. The rows
// of the product, one carry chain each, are in mont_rows.cuh.
#pragma once

#include "cuda/common.cuh"
#include "cuda/field_constants.hpp"
#include "cuda/mont_rows.cuh"

namespace starzk::gpu {

static __device__ __constant__ const uint32_t d_fp_mod[12] = {SZK_FP_MOD};
static __device__ __constant__ const uint32_t d_fp_one[12] = {SZK_FP_ONE};
static __device__ __constant__ const uint32_t d_fp_r2[12] = {SZK_FP_R2};
static __device__ __constant__ const uint32_t d_fp_mm2[12] = {SZK_FP_MM2};
static __device__ __constant__ const uint32_t d_fr_mod[8] = {SZK_FR_MOD};
static __device__ __constant__ const uint32_t d_fr_one[8] = {SZK_FR_ONE};
static __device__ __constant__ const uint32_t d_fr_r2[8] = {SZK_FR_R2};
static __device__ __constant__ const uint32_t d_fr_mm2[8] = {SZK_FR_MM2};
// Curve constants and exponents of the key checks (key_check_math.cuh);
// field_constants.hpp says what each one is.
static __device__ __constant__ const uint32_t d_fp_four[12] = {SZK_FP_FOUR};
static __device__ __constant__ const uint32_t d_fp_beta[12] = {SZK_FP_BETA};
static __device__ __constant__ const uint32_t d_fp_psi_cx_c1[12] = {SZK_FP_PSI_CX_C1};
static __device__ __constant__ const uint32_t d_fp_psi_cy_c0[12] = {SZK_FP_PSI_CY_C0};
static __device__ __constant__ const uint32_t d_fp_psi_cy_c1[12] = {SZK_FP_PSI_CY_C1};
static __device__ __constant__ const uint32_t d_fp_p_plus_1_div_4[12] = {SZK_FP_P_PLUS_1_DIV_4};
static __device__ __constant__ const uint32_t d_fp_p_minus_3_div_4[12] = {SZK_FP_P_MINUS_3_DIV_4};
static __device__ __constant__ const uint32_t d_fp_p_minus_1_div_2[12] = {SZK_FP_P_MINUS_1_DIV_2};

struct fp_dev_params {
  static constexpr int n = 12;
  static constexpr bool m_low_one = false;
  static constexpr uint32_t m0 = SZK_FP_M0;
  static SZK_D const uint32_t* mod() { return d_fp_mod; }
  static SZK_D const uint32_t* one() { return d_fp_one; }
  static SZK_D const uint32_t* r2() { return d_fp_r2; }
  static SZK_D const uint32_t* mm2() { return d_fp_mm2; }
};
// r = 1 + (2^32 - 1)·2^32 + ...: its two low limbs turn two of the products
// of each reduction word into adds (dev_mont_t::step).
struct fr_dev_params {
  static constexpr int n = 8;
  static constexpr bool m_low_one = true;
  static constexpr uint32_t m0 = SZK_FR_M0;
  static SZK_D const uint32_t* mod() { return d_fr_mod; }
  static SZK_D const uint32_t* one() { return d_fr_one; }
  static SZK_D const uint32_t* r2() { return d_fr_r2; }
  static SZK_D const uint32_t* mm2() { return d_fr_mm2; }
};

// Inline selects how operator* is emitted: in line (Fr by default; Fp only
// in the one translation unit that asks for it, msm_accumulate.cu) or as a
// call to one out-of-line copy (Fp elsewhere). Same bytes either way.
template <class P, bool Inline = (P::n <= 8)>
struct alignas(8) dev_mont_t {
  static constexpr int N = P::n;
  static_assert(N % 2 == 0, "the even/odd split needs an even limb count");
  using rows = mont_rows_t<N>;  // the product's carry-chain rows (mont_rows.cuh)
  uint32_t l[N];

  // ---- constants ----
  static SZK_D dev_mont_t zero() {
    dev_mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.l[i] = 0;
    return r;
  }
  static SZK_D dev_mont_t one() { return load_const(P::one()); }
  static SZK_D dev_mont_t load_const(const uint32_t* c) {
    dev_mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.l[i] = c[i];
    return r;
  }

  SZK_D bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= l[i];
    return acc == 0;
  }
  SZK_D bool operator==(const dev_mont_t& b) const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= l[i] ^ b.l[i];
    return acc == 0;
  }
  SZK_D bool operator!=(const dev_mont_t& b) const { return !(*this == b); }
  // The stored integer is below m (data read from outside, e.g. a key file,
  // may not be; every operation here assumes it): reduce_once keeps its
  // input exactly when subtracting m borrows.
  SZK_D bool is_canonical() const { return reduce_once() == *this; }

  // ---- addition: a + b < 2m < 2^(32N), then subtract m unless it borrows ----
  friend SZK_D dev_mont_t operator+(const dev_mont_t& a, const dev_mont_t& b) {
    dev_mont_t s;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s.l[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s.l[i]) : "r"(a.l[i]), "r"(b.l[i]));
    return s.reduce_once();
  }
  // a - b: subtract; on borrow add m back (masked, no branch).
  friend SZK_D dev_mont_t operator-(const dev_mont_t& a, const dev_mont_t& b) {
    dev_mont_t d;
    uint32_t bw;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d.l[0]) : "r"(a.l[0]), "r"(b.l[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d.l[i]) : "r"(a.l[i]), "r"(b.l[i]));
    asm volatile("subc.u32 %0, %1, %1;" : "=r"(bw) : "r"(0u));  // 0 or 0xffffffff
    const uint32_t* m = P::mod();
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(d.l[0]) : "r"(m[0] & bw));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(d.l[i]) : "r"(m[i] & bw));
    return d;
  }
  SZK_D dev_mont_t operator-() const { return zero() - *this; }
  SZK_D dev_mont_t dbl() const { return *this + *this; }
  SZK_D dev_mont_t& operator+=(const dev_mont_t& b) { return *this = *this + b; }
  SZK_D dev_mont_t& operator-=(const dev_mont_t& b) { return *this = *this - b; }
  SZK_D dev_mont_t& operator*=(const dev_mont_t& b) { return *this = *this * b; }

  // t in [0, 2m) -> t mod m: compute t - m; keep t if that borrowed.
  SZK_D dev_mont_t reduce_once() const {
    const uint32_t* m = P::mod();
    dev_mont_t d;
    uint32_t bw;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d.l[0]) : "r"(l[0]), "r"(m[0]));
#pragma unroll
    for (int i = 1; i < N; ++i) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d.l[i]) : "r"(l[i]), "r"(m[i]));
    asm volatile("subc.u32 %0, %1, %1;" : "=r"(bw) : "r"(0u));
#pragma unroll
    for (int i = 0; i < N; ++i) d.l[i] = (l[i] & bw) | (d.l[i] & ~bw);
    return d;
  }

  // ---- Montgomery multiplication (see the file comment) ----
  // One word of b: T <- (T + a·bi + m·q) / 2^32, q = (T + a·bi)·M0 mod 2^32.
  // On entry T = even + sum_k odd[k] 2^(32(k-1)) (odd[0] = 0); on exit
  // T·2^32 = even + 2^32·odd with even[0] = 0, i.e. after the shift the
  // caller swaps the names (even, odd). For the first word T = 0.
  static SZK_D void step(uint32_t* even, uint32_t* odd, const uint32_t* a, uint32_t bi, bool first) {
    if (first) {
      rows::mul_row(odd, a + 1, bi);
      rows::mul_row(even, a, bi);
    } else {
      asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(even[0]) : "r"(odd[1]));
      rows::mad_row_shift(odd, a + 1, bi);
      rows::mad_row(even, a, bi);
      asm volatile("addc.u32 %0, %0, 0;" : "+r"(odd[N - 1]));  // even's carry: weight 2^(32N)
    }
    const uint32_t q = even[0] * P::m0;
    const uint32_t* m = P::mod();
    if constexpr (P::m_low_one) {
      // Fr: M0 = 2^32 - 1, so q = -e0 (e0 = even[0]); m_0 = 1 and
      // m_1 = 2^32 - 1 give m_0·q = q (hi 0) and m_1·q = q·2^32 - q, whose
      // words are (e0, ~e0) for e0 != 0 and (0, 0) for e0 = 0.
      const uint32_t e0 = even[0];
      rows::mad_row_head(odd, m + 1, q, e0, e0 ? ~e0 : 0u);
      rows::mad_row_head(even, m, q, q, 0u);
    } else {
      rows::mad_row(odd, m + 1, q);  // no carry out: odd·2^32 <= T + a·bi + m·q < 2^(32N+32)
      rows::mad_row(even, m, q);     // makes even[0] = 0
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(odd[N - 1]));
  }

  // Fp products are out of line by default: a point formula then holds ~10
  // calls instead of ~10 inlined 288-multiply chains, which keeps ptxas time
  // and code size in check (the inlined form made one MSM translation unit
  // take minutes). Fr products (NTT butterflies) stay inline; so does Fp in
  // dev_fp_fast_t, used only by the bucket-accumulation kernel.
  friend SZK_D dev_mont_t operator*(const dev_mont_t& a, const dev_mont_t& b) {
    dev_mont_t r;
    if constexpr (!Inline)
      mul_outlined(r, a, b);
    else
      r = mul_inline(a, b);
    return r;
  }
  // The result goes out through a reference. The MSM's window-sum tree
  // (msm_window_sums.cuh) computed wrong G1 sums over this form on the H200
  // and right ones with the product in line, as fp2.cuh records for a G2
  // table built over Fp2 products with this signature. A new kernel is safer
  // over dev_fp_fast_t or a by-value call; the device tests against the host
  // guard every kernel that still uses this one.
  static __device__ __noinline__ void mul_outlined(dev_mont_t& r, const dev_mont_t& a, const dev_mont_t& b) {
    r = mul_inline(a, b);
  }
  static SZK_D dev_mont_t mul_inline(const dev_mont_t& a, const dev_mont_t& b) {
    uint32_t even[N], odd[N];
#pragma unroll
    for (int i = 0; i < N; i += 2) {
      step(even, odd, a.l, b.l[i], i == 0);
      step(odd, even, a.l, b.l[i + 1], false);
    }
    // T = even + (odd >> 32): one merging chain; then T < 2m.
    dev_mont_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.l[0]) : "r"(even[0]), "r"(odd[1]));
#pragma unroll
    for (int i = 1; i < N - 1; ++i)
      asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.l[i]) : "r"(even[i]), "r"(odd[i + 1]));
    asm volatile("addc.u32 %0, %1, 0;" : "=r"(r.l[N - 1]) : "r"(even[N - 1]));
    return r.reduce_once();
  }
  SZK_D dev_mont_t sqr() const { return *this * *this; }

  // Montgomery form -> canonical integer: a·R·R^-1, the reduction half of
  // a product alone (N rows of m·q, no rows of a·b: 2N^2 multiply-adds
  // instead of 4N^2). Word by word, t <- (t + q·m) / 2^32 with
  // q = t_0·M0 mod 2^32, which makes the low word zero; after N words
  // t = (a + Q·m) / R < m + 1, and t = m only for a non-zero multiple of
  // m, which reduce_once maps to 0 as the product did. A 64-bit sum q·m_j + t_j + carry stays
  // below 2^64.
  SZK_D dev_mont_t from_mont() const {
    const uint32_t* m = P::mod();
    uint32_t t[N + 1];
#pragma unroll
    for (int j = 0; j < N; ++j) t[j] = l[j];
    t[N] = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const uint32_t q = t[0] * P::m0;
      uint64_t acc = uint64_t(q) * m[0] + t[0];
#pragma unroll
      for (int j = 1; j < N; ++j) {
        acc = uint64_t(q) * m[j] + t[j] + (acc >> 32);
        t[j - 1] = uint32_t(acc);
      }
      acc = uint64_t(t[N]) + (acc >> 32);
      t[N - 1] = uint32_t(acc);
      t[N] = uint32_t(acc >> 32);
    }
    dev_mont_t r;
#pragma unroll
    for (int j = 0; j < N; ++j) r.l[j] = t[j];
    return r.reduce_once();
  }
  // Canonical integer -> Montgomery form (a·R^2·R^-1).
  SZK_D dev_mont_t to_mont() const { return *this * load_const(P::r2()); }

  // a^e for e given as N 32-bit limbs, left to right (one S per bit, one M per set bit).
  SZK_D dev_mont_t pow_limbs(const uint32_t* e) const {
    dev_mont_t r = one();
    for (int i = N - 1; i >= 0; --i) {
      const uint32_t w = e[i];
      for (int b = 31; b >= 0; --b) {
        r = r.sqr();
        if ((w >> b) & 1) r = r * *this;
      }
    }
    return r;
  }
  SZK_D dev_mont_t pow_u32(uint32_t e) const {
    dev_mont_t r = one(), x = *this;
    while (e) {
      if (e & 1) r = r * x;
      x = x.sqr();
      e >>= 1;
    }
    return r;
  }
  // Fermat: a^(m-2) = a^-1 (0 -> 0). ~log2(m) S + log2(m)/2 M; variable time is
  // not an issue (no secrets on the GPU side of the prover).
  SZK_D dev_mont_t inverse() const { return pow_limbs(P::mm2()); }
  // a/2 mod m; the Montgomery form halves with the value. The twin of the
  // host's mont_t::halve.
  SZK_D dev_mont_t halve() const {
    dev_mont_t r = *this;
    halve_mod(r.l);
    return r;
  }

  // a^-1 by the binary extended Euclid algorithm (0 -> 0). A one-thread
  // chain of ~2·log2(m) limb shifts and subtractions instead of Fermat's
  // ~log2(m) products: for the single inversions at the root of a batch
  // inversion (msm_affine.cu), where one thread's latency is what counts.
  // With A = a·R the stored integer, the loop keeps u = x1·A and v = x2·A
  // (mod m) from (u, v, x1, x2) = (A, m, 1, 0): halving an even u halves x1
  // (x1 + m when x1 is odd), and the larger of u, v loses the smaller.
  // It ends with u = 1 or v = 1, so x1 or x2 is A^-1 = a^-1·R^-1; the
  // Montgomery form a^-1·R is that times R^2, one product with R^3 = R2·R2.
  // Out of line: in line in a kernel with many other paths (the element-wise
  // test kernel), nvcc 13.0 dropped the zero test and the first two limbs of
  // u (read before written in the PTX); as its own function it is exact.
  __device__ __noinline__ dev_mont_t inverse_binary() const {
    if (is_zero()) return zero();
    uint32_t u[N], v[N], x1[N], x2[N];
#pragma unroll
    for (int i = 0; i < N; ++i) u[i] = l[i], v[i] = P::mod()[i], x1[i] = i == 0, x2[i] = 0;
    while (!limbs_one(u) && !limbs_one(v)) {
      while (!(u[0] & 1u)) limbs_halve(u, x1);
      while (!(v[0] & 1u)) limbs_halve(v, x2);
      uint32_t d[N];
      if (!limbs_sub(d, u, v)) {  // u >= v
#pragma unroll
        for (int i = 0; i < N; ++i) u[i] = d[i];
        limbs_sub_mod(x1, x2);
      } else {
        limbs_sub(v, v, u);
        limbs_sub_mod(x2, x1);
      }
    }
    const bool first = limbs_one(u);
    dev_mont_t r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.l[i] = first ? x1[i] : x2[i];
    const dev_mont_t r2 = load_const(P::r2());
    return r * (r2 * r2);
  }

 private:
  // Plain N-limb integers for inverse_binary (every index known at compile
  // time, so the arrays stay in registers).
  static SZK_D bool limbs_one(const uint32_t (&a)[N]) {
    uint32_t acc = a[0] ^ 1u;
#pragma unroll
    for (int i = 1; i < N; ++i) acc |= a[i];
    return acc == 0;
  }
  // d = a - b; returns the borrow.
  static SZK_D bool limbs_sub(uint32_t (&d)[N], const uint32_t (&a)[N], const uint32_t (&b)[N]) {
    uint32_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      const uint64_t t = uint64_t(a[i]) - b[i] - borrow;
      d[i] = uint32_t(t);
      borrow = uint32_t(t >> 63);
    }
    return borrow != 0;
  }
  // x = x - y mod m (x, y < m).
  static SZK_D void limbs_sub_mod(uint32_t (&x)[N], const uint32_t (&y)[N]) {
    if (limbs_sub(x, x, y)) {
      uint64_t c = 0;
#pragma unroll
      for (int i = 0; i < N; ++i) {
        c += uint64_t(x[i]) + P::mod()[i];
        x[i] = uint32_t(c);
        c >>= 32;
      }
    }
  }
  // a /= 2 (a even); x = x / 2 mod m (halve_mod).
  static SZK_D void limbs_halve(uint32_t (&a)[N], uint32_t (&x)[N]) {
#pragma unroll
    for (int i = 0; i < N - 1; ++i) a[i] = (a[i] >> 1) | (a[i + 1] << 31);
    a[N - 1] >>= 1;
    halve_mod(x);
  }
  // x = x / 2 mod m: x + m first when x is odd (m is), then one bit right.
  static SZK_D void halve_mod(uint32_t (&x)[N]) {
    const uint32_t odd = 0u - (x[0] & 1u);
    uint64_t c = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      c += uint64_t(x[i]) + (P::mod()[i] & odd);
      x[i] = uint32_t(c);
      c >>= 32;
    }
#pragma unroll
    for (int i = 0; i < N - 1; ++i) x[i] = (x[i] >> 1) | (x[i + 1] << 31);
    x[N - 1] = (x[N - 1] >> 1) | (uint32_t(c) << 31);
  }

 public:
};

using dev_fp_t = dev_mont_t<fp_dev_params>;
using dev_fr_t = dev_mont_t<fr_dev_params>;
using dev_fp_fast_t = dev_mont_t<fp_dev_params, true>;  // Fp with inlined products
static_assert(sizeof(dev_fp_fast_t) == 48);
static_assert(sizeof(dev_fp_t) == 48, "device Fp must match the host fp_t (48 bytes)");
static_assert(sizeof(dev_fr_t) == 32, "device Fr must match the host fr_t (32 bytes)");

}  // namespace starzk::gpu
