// lane_access.hpp: moving eight lane points' coordinates between memory
// and the 8-lane field (ff/fp_x8_ifma.hpp), for the lane buckets
// (bucket_lanes.cpp: the batch; bucket_lanes_sum.cpp: the window sums):
// rows loaded and stored whole around a transposition, cheaper than word
// gathers and scatters.
// Internal to src/msm; STARZK_IFMA_TARGET functions, run only where
// ff_path::wide().
#pragma once

#include <algorithm>
#include <cstdint>

#include "ff/fp_x8_ifma.hpp"

namespace starzk::lane_access {

#if STARZK_FF_IFMA

using ifma::fp_x8_t;

// An 8 x 8 transposition of 64-bit words: r[i] word j <-> r[j] word i (its
// own inverse). Pairs of rows interleaved, then 128-bit quarters twice.
STARZK_IFMA_TARGET inline void transpose8(__m512i* r) {
  // The zero-masked forms with every lane selected are the plain
  // instructions, whose intrinsics trip GCC 12's -Wuninitialized.
  constexpr __mmask8 all = 0xff;
  __m512i t[8], u[8];
  for (unsigned i = 0; i < 4; ++i) {
    t[2 * i] = _mm512_maskz_unpacklo_epi64(all, r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_maskz_unpackhi_epi64(all, r[2 * i], r[2 * i + 1]);
  }
  for (unsigned h = 0; h < 8; h += 4) {
    u[h] = _mm512_maskz_shuffle_i64x2(all, t[h], t[h + 2], 0x88);
    u[h + 1] = _mm512_maskz_shuffle_i64x2(all, t[h], t[h + 2], 0xDD);
    u[h + 2] = _mm512_maskz_shuffle_i64x2(all, t[h + 1], t[h + 3], 0x88);
    u[h + 3] = _mm512_maskz_shuffle_i64x2(all, t[h + 1], t[h + 3], 0xDD);
  }
  // u[0..3] hold words (0, 4), (2, 6), (1, 5), (3, 7) of rows 0-3 in
  // quarters (0, 2) and (1, 3); u[4..7] the same of rows 4-7.
  r[0] = _mm512_maskz_shuffle_i64x2(all, u[0], u[4], 0x88);
  r[4] = _mm512_maskz_shuffle_i64x2(all, u[0], u[4], 0xDD);
  r[2] = _mm512_maskz_shuffle_i64x2(all, u[1], u[5], 0x88);
  r[6] = _mm512_maskz_shuffle_i64x2(all, u[1], u[5], 0xDD);
  r[1] = _mm512_maskz_shuffle_i64x2(all, u[2], u[6], 0x88);
  r[5] = _mm512_maskz_shuffle_i64x2(all, u[2], u[6], 0xDD);
  r[3] = _mm512_maskz_shuffle_i64x2(all, u[3], u[7], 0x88);
  r[7] = _mm512_maskz_shuffle_i64x2(all, u[3], u[7], 0xDD);
}

// One F_p coordinate of eight lane points (64-byte aligned rows at
// base + off[l] words) into the lanes, and back into the `live` rows.
STARZK_IFMA_TARGET inline fp_x8_t load_part(const uint64_t* base, const int64_t* off) {
  fp_x8_t v;
  for (unsigned l = 0; l < 8; ++l) v.l[l] = _mm512_load_si512(base + off[l]);
  transpose8(v.l);
  v.bound = 1;
  return v;
}
STARZK_IFMA_TARGET inline void store_part(uint64_t* base, const int64_t* off, __mmask8 live, const fp_x8_t& v) {
  __m512i r[8];
  for (unsigned l = 0; l < 8; ++l) r[l] = v.l[l];
  transpose8(r);
  for (unsigned l = 0; l < 8; ++l)
    if (live & (1u << l)) _mm512_store_si512(base + off[l], r[l]);
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
