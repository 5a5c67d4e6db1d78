// The array-level test hooks of the 8-lane F_r (fr_x8_ifma.hpp): eight fr_t
// into the lanes by a change of radix through an aligned buffer, one
// operation, and back as canonical fr_t. Every function here that touches a
// vector register carries STARZK_IFMA_TARGET.
#include "ff/fr_x8_ifma.hpp"

namespace starzk::ifma {

#if STARZK_FF_IFMA

namespace {

STARZK_IFMA_TARGET inline fr_x8_t lanes_of(const fr_t* a) {
  alignas(64) uint64_t t[4][8];
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned k = 0; k < 4; ++k) t[k][j] = a[j].l[k];
  __m512i x[4];
  for (unsigned k = 0; k < 4; ++k) x[k] = _mm512_load_si512(t[k]);
  return fr_x8_t::from_limbs64(x);
}

STARZK_IFMA_TARGET inline void out_of(fr_t* out, const fr_x8_t& v) {
  __m512i x[4];
  v.canonical().to_limbs64(x);
  alignas(64) uint64_t t[4][8];
  for (unsigned k = 0; k < 4; ++k) _mm512_store_si512(t[k], x[k]);
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned k = 0; k < 4; ++k) out[j].l[k] = t[k][j];
}

}  // namespace

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void fr_mul_tw_x8(fr_t* out, const fr_t* a, const fr_t* w) {
  const fr_x8_t tw = lanes_of(w) * fr_x8_t::broadcast(fr_consts::to_twiddle52);
  out_of(out, lanes_of(a) * tw);
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void fr_add_x8(fr_t* out, const fr_t* a, const fr_t* b) {
  out_of(out, lanes_of(a) + lanes_of(b));
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void fr_sub_x8(fr_t* out, const fr_t* a, const fr_t* b) {
  out_of(out, lanes_of(a) - lanes_of(b));
}

#else

// Never reached: ff_path::wide() is false without IFMA.
void fr_mul_tw_x8(fr_t*, const fr_t*, const fr_t*) {}
void fr_add_x8(fr_t*, const fr_t*, const fr_t*) {}
void fr_sub_x8(fr_t*, const fr_t*, const fr_t*) {}

#endif

}  // namespace starzk::ifma
