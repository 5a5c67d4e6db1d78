// lane_access.hpp: moving eight lane points' coordinates between memory
// and the 8-lane field (ff/fp_x8_ifma.hpp), for the G1 lane buckets
// (bucket_lanes.cpp: the batch; bucket_lanes_sum.cpp: the window sums).
// Internal to src/msm; STARZK_IFMA_TARGET functions, run only where
// ff_path::wide().
#pragma once

#include <algorithm>
#include <cstdint>

#include "ff/fp_x8_ifma.hpp"

namespace starzk::lane_access {

#if STARZK_FF_IFMA

using ifma::fp_x8_t;

// Limb i of lane l from base[off[l] + i] (offsets in 64-bit words). The
// masked form with every lane selected is the same instruction; the plain
// intrinsic trips GCC 12's -Wmaybe-uninitialized (as in fp_x8_ifma.hpp).
STARZK_IFMA_TARGET inline fp_x8_t gather(const uint64_t* base, __m512i off) {
  fp_x8_t v;
#pragma GCC unroll 8
  for (unsigned i = 0; i < 8; ++i)
    v.l[i] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), __mmask8(0xff),
                                         _mm512_add_epi64(off, _mm512_set1_epi64(i)), base, 8);
  v.bound = 1;
  return v;
}

STARZK_IFMA_TARGET inline void scatter(uint64_t* base, __m512i off, __mmask8 m, const fp_x8_t& v) {
#pragma GCC unroll 8
  for (unsigned i = 0; i < 8; ++i)
    _mm512_mask_i64scatter_epi64(base, m, _mm512_add_epi64(off, _mm512_set1_epi64(i)), v.l[i], 8);
}

// v (bound <= 4) -> v mod p: minus 2p where v >= 2p, then minus p.
STARZK_IFMA_TARGET inline fp_x8_t canonical(const fp_x8_t& v) {
  const fp_x8_t h = fp_x8_t::reduce_once(v.l, ifma::consts::pow2_p52[1]);
  return fp_x8_t::reduce_once(h.l, ifma::consts::p52);
}

STARZK_IFMA_TARGET inline fp_x8_t select(__mmask8 m, const fp_x8_t& a, const fp_x8_t& b, uint32_t bound) {
  fp_x8_t r;
#pragma GCC unroll 8
  for (unsigned i = 0; i < 8; ++i) r.l[i] = _mm512_mask_mov_epi64(b.l[i], m, a.l[i]);
  r.bound = bound;
  return r;
}
STARZK_IFMA_TARGET inline fp_x8_t select(__mmask8 m, const fp_x8_t& a, const fp_x8_t& b) {
  return select(m, a, b, std::max(a.bound, b.bound));
}

#endif  // STARZK_FF_IFMA

}  // namespace starzk::lane_access
