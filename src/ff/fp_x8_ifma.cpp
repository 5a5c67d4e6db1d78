// The CPU test for the 8-lane IFMA field (fp_x8_ifma.hpp), the conversions
// between fp_t (6 x 64-bit limbs, R = 2^384) and the lanes (8 x 52-bit
// limbs, R = 2^416), and the array-level test hooks.
//
// The conversions are Montgomery products by a constant, so each is one
// vector product plus a transposition through a 64-byte aligned buffer:
//   in:  w = a·2^384 (any 384-bit integer w ≡ that), w·2^448·2^-416 = a·2^416
//   out: v = a·2^416, v·2^384·2^-416 = a·2^384, then v < 2p -> v mod p.
// Every function here that touches a vector register carries
// STARZK_IFMA_TARGET; nothing else in the library does.
#include "ff/fp_x8_ifma.hpp"

#if STARZK_FF_IFMA
#include <cpuid.h>
#endif

namespace starzk {

namespace ff_path {

bool cpu_has_ifma() {
#if STARZK_FF_IFMA
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  if (!(ecx & (1u << 27))) return false;  // OSXSAVE: XGETBV is usable
  uint32_t xcr0_lo = 0, xcr0_hi = 0;
  __asm__("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  // SSE (1), AVX (2), opmask (5), upper halves of zmm0-15 (6), zmm16-31 (7).
  constexpr uint32_t zmm_state = (1u << 1) | (1u << 2) | (1u << 5) | (1u << 6) | (1u << 7);
  if ((xcr0_lo & zmm_state) != zmm_state) return false;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  // Leaf 7 EBX: AVX512F (16), AVX512IFMA (21), AVX512BW (30), AVX512VL (31).
  constexpr uint32_t need = (1u << 16) | (1u << 21) | (1u << 30) | (1u << 31);
  return (ebx & need) == need;
#else
  return false;
#endif
}

}  // namespace ff_path

namespace ifma {

#if STARZK_FF_IFMA

namespace {

// [limb][lane] <-> lanes of 52-bit limbs; `bound` as fp_x8_t::bound.
STARZK_IFMA_TARGET fp_x8_t load(const limbs52_t* lanes, uint32_t bound) {
  alignas(64) uint64_t buf[8][8];
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned i = 0; i < 8; ++i) buf[i][j] = lanes[j][i];
  fp_x8_t v;
  for (unsigned i = 0; i < 8; ++i) v.l[i] = _mm512_load_si512(buf[i]);
  v.bound = bound;
  return v;
}

STARZK_IFMA_TARGET void store(const fp_x8_t& v, limbs52_t* lanes) {
  alignas(64) uint64_t buf[8][8];
  for (unsigned i = 0; i < 8; ++i) _mm512_store_si512(buf[i], v.l[i]);
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned i = 0; i < 8; ++i) lanes[j][i] = buf[i][j];
}

}  // namespace

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN fp_x8_t to_lanes(const fp_t* in) {
  limbs52_t lanes[8];
  for (unsigned j = 0; j < 8; ++j) lanes[j] = to_radix52(in[j].mont_limbs());
  // 2^384 < 10 p: bound 10.
  return load(lanes, 10) * fp_x8_t::broadcast(consts::to_lanes52);
}

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void from_lanes(const fp_x8_t& v, fp_t* out) {
  const fp_x8_t t = v * fp_x8_t::broadcast(consts::from_lanes52);  // < 2p
  const fp_x8_t c = fp_x8_t::reduce_once(t.l, consts::p52);        // < p
  limbs52_t lanes[8];
  store(c, lanes);
  for (unsigned j = 0; j < 8; ++j) out[j] = fp_t::from_mont_limbs(from_radix52(lanes[j]));
}

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void mul_x8(fp_t* r, const fp_t* a, const fp_t* b) {
  from_lanes(to_lanes(a) * to_lanes(b), r);
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void sqr_x8(fp_t* r, const fp_t* a) { from_lanes(to_lanes(a).sqr(), r); }
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void add_x8(fp_t* r, const fp_t* a, const fp_t* b) {
  from_lanes(to_lanes(a) + to_lanes(b), r);
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void sub_x8(fp_t* r, const fp_t* a, const fp_t* b) {
  from_lanes(to_lanes(a) - to_lanes(b), r);
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void round_trip_x8(fp_t* r, const fp_t* a) { from_lanes(to_lanes(a), r); }

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void mul_x8_raw(limbs52_t* r, const limbs52_t* a, const limbs52_t* b) {
  store(load(a, 2) * load(b, 2), r);
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void add_x8_raw(limbs52_t* r, const limbs52_t* a, const limbs52_t* b) {
  store(load(a, 2) + load(b, 2), r);
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void sub_x8_raw(limbs52_t* r, const limbs52_t* a, const limbs52_t* b) {
  store(load(a, 2) - load(b, 2), r);
}

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void repeated_add_x8(fp_t* r, const fp_t* a, unsigned n) {
  const fp_x8_t x = to_lanes(a);
  fp_x8_t s = fp_x8_t::zero();
  for (unsigned i = 0; i < n; ++i) s = s + x;
  from_lanes(s, r);
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void repeated_sub_x8(fp_t* r, const fp_t* a, unsigned n) {
  const fp_x8_t x = to_lanes(a);
  fp_x8_t s = fp_x8_t::zero();
  for (unsigned i = 0; i < n; ++i) s = s - x;
  from_lanes(s, r);
}

#else  // no IFMA build: the hooks exist and are never called (cpu_has_ifma() is false).

void mul_x8(fp_t*, const fp_t*, const fp_t*) {}
void sqr_x8(fp_t*, const fp_t*) {}
void add_x8(fp_t*, const fp_t*, const fp_t*) {}
void sub_x8(fp_t*, const fp_t*, const fp_t*) {}
void round_trip_x8(fp_t*, const fp_t*) {}
void mul_x8_raw(limbs52_t*, const limbs52_t*, const limbs52_t*) {}
void add_x8_raw(limbs52_t*, const limbs52_t*, const limbs52_t*) {}
void sub_x8_raw(limbs52_t*, const limbs52_t*, const limbs52_t*) {}
void repeated_add_x8(fp_t*, const fp_t*, unsigned) {}
void repeated_sub_x8(fp_t*, const fp_t*, unsigned) {}

#endif

}  // namespace ifma
}  // namespace starzk
