// Level 1 of the G1 MSM's bucket accumulation (msm.cu, step 3), on its own
// translation unit because it is the one kernel compiled with the Fp product
// in line (dev_fp_fast_t): the loop below is ~85% of an MSM's arithmetic
// (W·n mixed additions, madd-2008-s, 8M + 2S each), and inlining removes the
// call's argument shuffling and lets the scheduler overlap neighbouring
// products. Kept alone so that ptxas works on one inlined point formula, not
// on every kernel of msm.cu (the whole file inlined took minutes).
//
// Each thread owns `chunk` consecutive entries of one bucket's sorted run
// (value = point index | sign << 31) and sums those points, negating y for
// negative digits. The XYZZ result has the same bytes as dev_g1_xyzz_t.
#include "cuda/msm_common.cuh"

namespace starzk::gpu {
namespace {

using fast_affine_t = dev_affine_t<dev_fp_fast_t>;
using fast_xyzz_t = dev_xyzz_t<dev_fp_fast_t>;
static_assert(sizeof(fast_affine_t) == sizeof(dev_g1_affine_t) && sizeof(fast_xyzz_t) == sizeof(dev_g1_xyzz_t));

__global__ void __launch_bounds__(128) accumulate_points_kernel(const fast_affine_t* bases, const uint32_t* vals,
                                                                const uint64_t* start, const uint64_t* end,
                                                                const uint32_t* off, size_t buckets, unsigned chunk,
                                                                fast_xyzz_t* out) {
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const uint32_t total = off[buckets];
  if (t >= total) return;
  const size_t g = find_bucket(off, buckets, uint32_t(t));
  const uint64_t b = start[g] + uint64_t(t - off[g]) * chunk;
  const uint64_t e = b + chunk < end[g] ? b + chunk : end[g];
  fast_xyzz_t acc = fast_xyzz_t::infinity();
  for (uint64_t k = b; k < e; ++k) {
    const uint32_t v = vals[k];
    fast_affine_t p = bases[v & ~msm_sign_bit];
    if (v & msm_sign_bit) p.y = -p.y;
    acc = acc.add_affine(p);
  }
  out[t] = acc;
}

}  // namespace

cudaError_t launch_accumulate_points(const dev_g1_affine_t* bases, const uint32_t* vals, const uint64_t* start,
                                     const uint64_t* end, const uint32_t* off, size_t buckets, unsigned chunk,
                                     dev_g1_xyzz_t* out, size_t threads, unsigned block, cudaStream_t s) {
  accumulate_points_kernel<<<grid_for(threads, block), block, 0, s>>>(
      reinterpret_cast<const fast_affine_t*>(bases), vals, start, end, off, buckets, chunk,
      reinterpret_cast<fast_xyzz_t*>(out));
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

}  // namespace starzk::gpu
