// Level 1 of the MSM's bucket accumulation (msm.cu, step 3), on its own
// translation unit because for G1 it is the one kernel compiled with the Fp
// product in line (g1_curve_t::acc_*_type over dev_fp_fast_t): the loop below
// is ~85% of an MSM's arithmetic (W·n mixed additions, madd-2008-s, 8M + 2S
// each), and inlining removes the call's argument shuffling and lets the
// scheduler overlap neighbouring products. Kept apart so that ptxas works on
// one inlined point formula, not on every kernel of msm.cu (the whole file
// inlined took minutes). G2 is instantiated here too, with one call
// per Fp2 product (fp2.cuh; msm_curve.cuh says why).
//
// Each thread owns `chunk` consecutive entries of one bucket's sorted run
// (value = point index | sign << 31) and sums those points, negating y for
// negative digits. The XYZZ result has the same bytes as C::xyzz_type.
#include "cuda/msm_common.cuh"

namespace starzk::gpu {
namespace {

// Prefetch: the next entry's point is loaded while the current one is
// added (G1: -1.5% at 2^24 on the H200; 168 registers, capped so that three
// blocks of 128 still fit an SM as without it). G2's accumulator leaves no
// registers for it (it ran 20% slower).
template <class A, class X, bool Prefetch>
__global__ void __launch_bounds__(128, Prefetch ? 3 : 1)
    accumulate_points_kernel(const A* bases, const uint32_t* vals, const uint64_t* start, const uint64_t* end,
                             const uint32_t* off, size_t buckets, unsigned chunk, X* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const uint32_t total = off[buckets];
  if (t >= total) return;
  const size_t g = find_bucket(off, buckets, uint32_t(t));
  const uint64_t b = start[g] + uint64_t(t - off[g]) * chunk;
  const uint64_t e = b + chunk < end[g] ? b + chunk : end[g];
  X acc = X::infinity();
  if constexpr (Prefetch) {
    if (b < e) {
      uint32_t v = vals[b];
      A p = bases[v & ~msm_sign_bit];
      for (uint64_t k = b; k < e; ++k) {
        uint32_t vn = 0;
        A next = p;
        if (k + 1 < e) {
          vn = vals[k + 1];
          next = bases[vn & ~msm_sign_bit];
        }
        if (v & msm_sign_bit) p.y = -p.y;
        acc = acc.add_mixed(p);
        p = next;
        v = vn;
      }
    }
  } else {
    for (uint64_t k = b; k < e; ++k) {
      const uint32_t v = vals[k];
      A p = bases[v & ~msm_sign_bit];
      if (v & msm_sign_bit) p.y = -p.y;
      acc = acc.add_mixed(p);
    }
  }
  out[t] = acc;
}

}  // namespace

template <class C>
cudaError_t launch_accumulate_points(const typename C::affine_type* bases, const uint32_t* vals, const uint64_t* start,
                                     const uint64_t* end, const uint32_t* off, size_t buckets, unsigned chunk,
                                     typename C::xyzz_type* out, size_t threads, unsigned block, cudaStream_t s) {
  using A = typename C::acc_affine_type;
  using X = typename C::acc_xyzz_type;
  accumulate_points_kernel<A, X, C::prefetch><<<grid_for(threads, block), block, 0, s>>>(
      reinterpret_cast<const A*>(bases), vals, start, end, off, buckets, chunk, reinterpret_cast<X*>(out));
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template cudaError_t launch_accumulate_points<g1_curve_t>(const dev_g1_affine_t*, const uint32_t*, const uint64_t*,
                                                          const uint64_t*, const uint32_t*, size_t, unsigned,
                                                          dev_g1_xyzz_t*, size_t, unsigned, cudaStream_t);
template cudaError_t launch_accumulate_points<g2_curve_t>(const dev_g2_affine_t*, const uint32_t*, const uint64_t*,
                                                          const uint64_t*, const uint32_t*, size_t, unsigned,
                                                          dev_g2_xyzz_t*, size_t, unsigned, cudaStream_t);

}  // namespace starzk::gpu
