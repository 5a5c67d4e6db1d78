// 16-byte loads and stores of field elements and affine points for the
// batch-affine levels (msm_affine.cu). Neighbouring threads there touch
// points 96 bytes apart (G1; 192 for G2), so every memory instruction is
// spread over many cache lines: moving a field element as 16-byte vectors
// (uint4) halves the instructions of 8-byte ones. The arrays they read and
// write must be 16-byte aligned (the MSM's scratch and bases are; bases
// that are not run without the levels, starzk_cuda.hpp).
#pragma once

#include <cstdint>

#include "cuda/common.cuh"
#include "cuda/fp2.cuh"

namespace starzk::gpu {

// A field element of sizeof(F) / 16 vectors, loaded and stored.
template <class F>
SZK_D F load_vec(const F& at) {
  static_assert(sizeof(F) % 16 == 0);
  F r;
  const uint4* p = reinterpret_cast<const uint4*>(&at);
#pragma unroll
  for (unsigned i = 0; i < sizeof(F) / 16; ++i) {
    const uint4 v = p[i];
    r.l[4 * i] = v.x, r.l[4 * i + 1] = v.y, r.l[4 * i + 2] = v.z, r.l[4 * i + 3] = v.w;
  }
  return r;
}
template <class F>
SZK_D void store_vec(F& at, const F& v) {
  uint4* p = reinterpret_cast<uint4*>(&at);
#pragma unroll
  for (unsigned i = 0; i < sizeof(F) / 16; ++i)
    p[i] = make_uint4(v.l[4 * i], v.l[4 * i + 1], v.l[4 * i + 2], v.l[4 * i + 3]);
}
// Fp2 (G2): its two Fp halves, each as above.
SZK_D dev_fp2_t load_vec(const dev_fp2_t& at) { return {load_vec(at.c0), load_vec(at.c1)}; }
SZK_D void store_vec(dev_fp2_t& at, const dev_fp2_t& v) {
  store_vec(at.c0, v.c0);
  store_vec(at.c1, v.c1);
}
template <class A>
SZK_D A load_point(const A& at) {
  A r;
  r.x = load_vec(at.x);
  r.y = load_vec(at.y);
  return r;
}

}  // namespace starzk::gpu
