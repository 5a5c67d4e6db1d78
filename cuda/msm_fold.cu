// Step 3 of the MSM (msm.cu) around its level-1 kernel (msm_accumulate.cu):
// how many chunks each bucket's sorted run is cut into, and the folding of
// those chunks' partials to one per bucket.
//
// Level 1 leaves bucket g with q1 = off[g+1] - off[g] partials at
// parts[off[g] .. off[g] + q1). A bucket of a boolean-heavy witness can
// hold most of the terms (window 0, bucket 1: after level 1 of a 2^27
// witness about 2^21 partials), so the folding must spread one bucket over
// many threads and keep every chain short: its last steps have few
// threads, and their time is the chain's latency.
//
// The fold works in place, in steps l = 1, 2, ... of stride s = ways^(l-1):
// before step l, bucket g's sums still to add sit at parts[off[g] + j·s]
// for j < q = ceil(q1 / s); thread k of the bucket adds those with
// j = k·ways .. k·ways + ways - 1 into the first, at (k·ways)·s, which is
// where step l + 1 reads it. The threads of a step read and write disjoint
// places, so the fold needs no second array, and a bucket already down to
// one sum (q = 1) takes no thread and no copy. After
// ceil(log_ways(max q1)) steps every bucket's sum sits at its first
// partial, parts[off[g]], which is what the window sums and the shared
// set of buckets read (msm_window_sums.cuh, msm_sink.cu). Each step is a
// count of its threads per bucket, a scan, and the adds (add-2008-s).
#include <cub/device/device_scan.cuh>

#include "cuda/msm_common.cuh"

namespace starzk::gpu {
namespace {

// Blocks of a folding step; the kernel strides over any threads beyond.
constexpr size_t fold_grid_cap = 8192;

__global__ void __launch_bounds__(256) count_points_kernel(const uint64_t* start, const uint64_t* end, size_t buckets,
                                                           unsigned K, unsigned chunk, uint32_t* counts) {
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g > buckets) return;
  uint32_t c = 0;
  if (g < buckets && g % (K + 1) != 0) c = uint32_t((end[g] - start[g] + chunk - 1) / chunk);
  counts[g] = c;
}

// Sums of bucket g left before the step of stride s: ceil(q1 / s).
__device__ __forceinline__ uint64_t fold_left(const uint32_t* off, size_t g, uint64_t stride) {
  return (uint64_t(off[g + 1] - off[g]) + stride - 1) / stride;
}

// The step's threads per bucket: ceil(q / ways), none where q <= 1.
__global__ void __launch_bounds__(256)
    count_folds_kernel(const uint32_t* off, size_t buckets, uint64_t stride, unsigned ways, uint32_t* counts) {
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g > buckets) return;
  const uint64_t q = g < buckets ? fold_left(off, g, stride) : 0;
  counts[g] = q > 1 ? uint32_t((q + ways - 1) / ways) : 0;
}

// One step: thread t (of fo[buckets]) is thread k = t - fo[g] of bucket g.
template <class X>
__global__ void __launch_bounds__(128) fold_parts_kernel(X* parts, const uint32_t* off, const uint32_t* fo,
                                                         size_t buckets, uint64_t stride, unsigned ways) {
  const uint32_t total = fo[buckets];
  for (size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x; t < total; t += size_t(gridDim.x) * blockDim.x) {
    const size_t g = find_bucket(fo, buckets, uint32_t(t));
    const uint64_t q = fold_left(off, g, stride), first = (t - fo[g]) * uint64_t(ways);
    const uint64_t last = first + ways < q ? first + ways : q;
    X* base = parts + off[g];
    X acc = base[first * stride];
    for (uint64_t j = first + 1; j < last; ++j) acc = acc.add(base[j * stride]);
    base[first * stride] = acc;
  }
}

}  // namespace

cudaError_t launch_chunk_offsets(const uint64_t* start, const uint64_t* end, size_t buckets, unsigned K, unsigned chunk,
                                 uint32_t* counts, uint32_t* off, void* scan_temp, size_t scan_bytes, cudaStream_t s) {
  count_points_kernel<<<grid_for(buckets + 1, 256), 256, 0, s>>>(start, end, buckets, K, chunk, counts);
  SZK_CHECK_LAUNCH();
  SZK_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, off, int(buckets + 1), s));
  return cudaSuccess;
}

template <class X>
cudaError_t launch_fold(X* parts, const uint32_t* off, uint32_t* counts, uint32_t* fo, void* scan_temp,
                        size_t scan_bytes, size_t buckets, size_t parts_bound, unsigned steps, unsigned ways,
                        unsigned block, cudaStream_t s) {
  uint64_t stride = 1;
  for (unsigned l = 0; l < steps; ++l, stride *= ways) {
    count_folds_kernel<<<grid_for(buckets + 1, 256), 256, 0, s>>>(off, buckets, stride, ways, counts);
    SZK_CHECK_LAUNCH();
    size_t temp = scan_bytes;
    SZK_TRY(cub::DeviceScan::ExclusiveSum(scan_temp, temp, counts, fo, int(buckets + 1), s));
    // a step has at most (partials left) / ways threads plus one per bucket
    const size_t threads = std::min(parts_bound / stride / ways + buckets, fold_grid_cap * size_t(block));
    fold_parts_kernel<<<grid_for(threads, block), block, 0, s>>>(parts, off, fo, buckets, stride, ways);
    SZK_CHECK_LAUNCH();
  }
  return cudaSuccess;
}

template cudaError_t launch_fold<dev_g1_xyzz_t>(dev_g1_xyzz_t*, const uint32_t*, uint32_t*, uint32_t*, void*, size_t,
                                                size_t, size_t, unsigned, unsigned, unsigned, cudaStream_t);
template cudaError_t launch_fold<dev_g2_xyzz_t>(dev_g2_xyzz_t*, const uint32_t*, uint32_t*, uint32_t*, void*, size_t,
                                                size_t, size_t, unsigned, unsigned, unsigned, cudaStream_t);

}  // namespace starzk::gpu
