// The array-level test hooks of the 8-lane F_r (fr_x8_ifma.hpp): eight fr_t
// into the lanes (fr_x8_t::load), one operation, and back as canonical fr_t
// (fr_x8_t::store). Every function here that touches a
// vector register carries STARZK_IFMA_TARGET.
#include "ff/fr_x8_ifma.hpp"

namespace starzk::ifma {

#if STARZK_FF_IFMA

STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void fr_mul_tw_x8(fr_t* out, const fr_t* a, const fr_t* w) {
  fr_x8_t::store(out, (fr_x8_t::load(a) * fr_x8_t::load(w).twiddle_form()).canonical());
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void fr_add_x8(fr_t* out, const fr_t* a, const fr_t* b) {
  fr_x8_t::store(out, (fr_x8_t::load(a) + fr_x8_t::load(b)).canonical());
}
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void fr_sub_x8(fr_t* out, const fr_t* a, const fr_t* b) {
  fr_x8_t::store(out, (fr_x8_t::load(a) - fr_x8_t::load(b)).canonical());
}

#else

// Never reached: ff_path::wide() is false without IFMA.
void fr_mul_tw_x8(fr_t*, const fr_t*, const fr_t*) {}
void fr_add_x8(fr_t*, const fr_t*, const fr_t*) {}
void fr_sub_x8(fr_t*, const fr_t*, const fr_t*) {}

#endif

}  // namespace starzk::ifma
