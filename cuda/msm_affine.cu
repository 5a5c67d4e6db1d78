// Batch-affine bucket reduction for the G1 and G2 MSMs (msm.cu, step 3a).
// Before the XYZZ accumulation, each bucket's sorted run is halved level by
// level with affine additions whose inversions are shared across the whole
// level (Montgomery's trick), so a bucket addition costs about 6 field
// products instead of madd-2008-s's 10 (G2: 6 Fp2 products, 18 Fp ones,
// against 28; the shared inversions are Fp2 ones, fp2.cuh).
//
// One level, input: per bucket g a run of c_g affine points (level 0: the
// sorted entries, point index | sign, gathered from the bases; later levels:
// the previous level's output). Output: ceil(c_g / 2) points per bucket,
// out_i = in_2i + in_2i+1 (the last one copied when c_g is odd), written
// bucket by bucket at offsets from an exclusive scan of the counts; a
// sources pass first records where each output reads (src[j]).
//
// Each output is P + Q = (x3, y3) with lambda = num / den:
//   addition (x_P != x_Q):  num = y_Q - y_P, den = x_Q - x_P
//   doubling (P == Q):      num = 3 x_P^2,   den = 2 y_P
//   x3 = lambda^2 - x_P - x_Q,  y3 = lambda (x_P - x3) - y_P.
// A copy (odd tail, P or Q at infinity) and P == -Q (the result is O, stored
// as (0, 0)) take den = 1, so every den is non-zero and the batch stays valid.
//
// Inversions, three passes per level. Thread t of block b owns the
// `pair_chunk` outputs b·128·pair_chunk + i·128 + t, so a warp's accesses
// are to neighbouring outputs.
//  forward  from the x coordinates alone (loaded one output ahead), the
//           running products of the thread's dens into a dense array pre
//           (one field element per output, 48 bytes for G1: a warp writes 1.5 KiB in
//           one piece), and the total into tot[t];
//  tree     tot is inverted in place by the same trick, recursively
//           (batch_inverse.cuh: 8 per thread, leaves inverted by one thread
//           each with binary Euclid, field.cuh). Its latency
//           (~0.5 ms whatever the level's size: a dozen small launches and
//           one thread's Euclid) is hidden: each level runs as two halves,
//           each its own batch, and a half's tree runs on a second stream of
//           higher priority while the main stream goes on with the other
//           half's forward or backward pass:
//             main:  fwd 1 | fwd 2     | bwd 1     | bwd 2
//             side:        | tree 1    | tree 2    |
//           (the higher priority lets the tree's few blocks start as soon as
//           SM slots free up instead of after every pending block of the
//           big kernel);
//  backward thread t walks its outputs from the last: with acc = the inverse
//           of the running product up to output j, den_j^-1 = acc · prefix_{j-1}
//           and acc · den_j is the next acc; the points are read again and
//           the sums written to the output array.
// Per output: 1 product forward, 5 backward (2 for the inverse, lambda,
// lambda^2, y3), plus 3/pair_chunk for the tree. On the H200 at n = 2^24
// (docs/benchmarks.md) the backward pass runs near the rate of the XYZZ
// loop (2.4e10 products/s) and the forward pass, which moves ~180 bytes per
// product, at about half its product rate.

#include "cuda/batch_inverse.cuh"
#include "cuda/msm_common.cuh"
#include "cuda/msm_timer.cuh"
#include "cuda/vector_io.cuh"

namespace starzk::gpu {
namespace {

constexpr unsigned pair_chunk = 32;  // outputs per thread of the pair passes

enum pair_kind_t : int { copy_p, copy_q, infinity_out, lambda_out };

template <class A, class F>
struct pair_t {
  A p, q;
  pair_kind_t kind;
  F num, den;
};

template <class A, class F>
SZK_D pair_t<A, F> classify(const A& p, const A& q, bool has_q) {
  pair_t<A, F> r;
  r.p = p;
  r.q = q;
  r.den = F::one();
  r.num = F::zero();
  if (!has_q || q.is_infinity()) {
    r.kind = copy_p;
  } else if (p.is_infinity()) {
    r.kind = copy_q;
  } else if (p.x != q.x) {
    r.kind = lambda_out;
    r.num = q.y - p.y;
    r.den = q.x - p.x;
  } else if (p.y == q.y && !p.y.is_zero()) {
    r.kind = lambda_out;
    const F x2 = p.x.sqr();
    r.num = x2.dbl() + x2;
    r.den = p.y.dbl();
  } else {
    r.kind = infinity_out;  // Q = -P
  }
  return r;
}

// Level 0 reads the sorted entries (value = point index | sign << 31).
template <class A>
struct gather_src_t {
  const A* bases;
  const uint32_t* vals;
  SZK_D A operator()(uint64_t k) const {
    const uint32_t v = vals[k];
    A p = load_point(bases[v & ~msm_sign_bit]);
    if (v & msm_sign_bit) p.y = -p.y;
    return p;
  }
  SZK_D decltype(A::x) x(uint64_t k) const { return load_vec(bases[vals[k] & ~msm_sign_bit].x); }
};
// Later levels read the previous level's points.
template <class A>
struct array_src_t {
  const A* pts;
  SZK_D A operator()(uint64_t k) const { return load_point(pts[k]); }
  SZK_D decltype(A::x) x(uint64_t k) const { return load_vec(pts[k].x); }
};

// Where output j reads: src[j] = k | has_q << 31, its inputs being k and,
// when has_q, k + 1 (k = start[g] + 2(j - off[g]) in its bucket g).
// A block makes sources_span outputs (thread t: first + i·block + t). Two
// of its threads search all buckets for the first and the last output; the
// block then searches only between those two buckets (~16 for random
// scalars). A full search per block of 256 was measured 3.5 ms per 2^24 MSM
// (its ~18 dependent loads held every block); one per thread costs more.
constexpr unsigned sources_block = 256, sources_span = 16 * sources_block;
__global__ void __launch_bounds__(sources_block)
    pair_sources_kernel(const uint64_t* start, const uint64_t* end, const uint32_t* off, size_t buckets, size_t bound,
                        uint32_t* src) {
  const size_t total = off[buckets] < bound ? off[buckets] : bound;
  const size_t first = blockIdx.x * size_t(sources_span);
  if (first >= total) return;  // the whole block: no barrier is skipped
  const size_t last = first + sources_span - 1 < total ? first + sources_span - 1 : total - 1;
  __shared__ size_t range[2];
  if (threadIdx.x == 0) range[0] = find_bucket(off, buckets, uint32_t(first));
  if (threadIdx.x == 32) range[1] = find_bucket(off, buckets, uint32_t(last)) + 1;
  __syncthreads();
  const size_t g0 = range[0], span = range[1] - range[0];
  for (size_t j = first + threadIdx.x; j <= last; j += sources_block) {
    const size_t g = g0 + find_bucket(off + g0, span, uint32_t(j));
    const uint64_t k = start[g] + 2 * (j - off[g]);
    src[j] = uint32_t(k) | (k + 1 < end[g] ? msm_sign_bit : 0u);
  }
}

template <class A, class F, class Src>
SZK_D pair_t<A, F> load_pair(const Src& src, uint32_t sj) {
  const uint64_t k = sj & ~msm_sign_bit;
  const bool has_q = sj & msm_sign_bit;
  A q{};
  if (has_q) q = src(k + 1);
  return classify<A, F>(src(k), q, has_q);
}

// den of output j from the x coordinates alone unless they are equal or
// zero (a G1 point with x = 0 can only be the point at infinity (0, 0), but
// the full classification decides). Loaded one output ahead of its use.
template <class F>
struct den_in_t {
  uint32_t sj;
  F xp, xq;
};
template <class F, class Src>
SZK_D den_in_t<F> load_den_in(const Src& src, uint32_t sj) {
  den_in_t<F> d;
  d.sj = sj;
  d.xp = F::one();
  d.xq = F::zero();
  if (sj & msm_sign_bit) {
    const uint64_t k = sj & ~msm_sign_bit;
    d.xp = src.x(k);
    d.xq = src.x(k + 1);
  }
  return d;
}
template <class A, class F, class Src>
SZK_D F finish_den(const Src& src, const den_in_t<F>& d) {
  if (!(d.sj & msm_sign_bit)) return F::one();
  if (d.xp != d.xq && !d.xp.is_zero() && !d.xq.is_zero()) return d.xq - d.xp;
  return load_pair<A, F>(src, d.sj).den;
}

// Thread t of block b owns outputs j = b·128·pair_chunk + i·128 + t,
// i = 0..pair_chunk-1, so a warp reads consecutive sources and, after
// level 0, consecutive points.
constexpr unsigned pair_block = 128;
// (b0: the first block of the half being launched.)
SZK_D uint64_t pair_output(unsigned b0, unsigned i) {
  return uint64_t(b0 + blockIdx.x) * pair_block * pair_chunk + uint64_t(i) * pair_block + threadIdx.x;
}

// The next output's source and x coordinates are loaded before this one's
// product. On the H200 (docs/benchmarks.md) that was no faster than loading
// them in turn, nor were 5 blocks per SM (96 registers, with or without the
// look-ahead: 20.7 and 20.9 against 20.4 ms at 2^24); it is the form the
// tests and the figures ran. Distinct bases (1.5 GiB) and bases that fit in
// L2 time the same, so the gathers of level 0 are not what bounds it.
template <class A, class F, class Src>
__global__ void __launch_bounds__(pair_block) pair_forward_kernel(Src src, const uint32_t* srcs, const uint32_t* off,
                                                                  size_t buckets, unsigned b0, F* pre, F* tot) {
  const uint64_t total = off[buckets];
  unsigned count = 0;
  while (count < pair_chunk && pair_output(b0, count) < total) ++count;
  F acc = F::one();
  if (count > 0) {
    den_in_t<F> cur = load_den_in<F>(src, srcs[pair_output(b0, 0)]);
    for (unsigned i = 0; i < count; ++i) {
      den_in_t<F> next = cur;
      if (i + 1 < count) next = load_den_in<F>(src, srcs[pair_output(b0, i + 1)]);
      const F den = finish_den<A, F>(src, cur);
      acc = i == 0 ? den : acc * den;
      store_vec(pre[pair_output(b0, i)], acc);
      cur = next;
    }
  }
  tot[(b0 + blockIdx.x) * size_t(pair_block) + threadIdx.x] = acc;
}

template <class A, class F, class Src>
__global__ void __launch_bounds__(pair_block, 4)
    pair_backward_kernel(Src src, const uint32_t* srcs, const uint32_t* off, size_t buckets, unsigned b0, const F* pre,
                         A* out, const F* tot) {
  const uint64_t total = off[buckets];
  if (pair_output(b0, 0) >= total) return;
  F acc = tot[(b0 + blockIdx.x) * size_t(pair_block) + threadIdx.x];  // (product of the dens)^-1
  unsigned i = pair_chunk;
  while (pair_output(b0, i - 1) >= total) --i;
  for (; i-- > 0;) {
    const uint64_t j = pair_output(b0, i);
    const pair_t<A, F> pr = load_pair<A, F>(src, srcs[j]);
    F inv = acc;
    if (i > 0) {
      inv = acc * load_vec(pre[j - pair_block]);
      acc = acc * pr.den;
    }
    A r;
    if (pr.kind == copy_p) {
      r = pr.p;
    } else if (pr.kind == copy_q) {
      r = pr.q;
    } else if (pr.kind == infinity_out) {
      r.x = F::zero();
      r.y = F::zero();
    } else {
      const F lambda = pr.num * inv;
      r.x = lambda.sqr() - pr.p.x - pr.q.x;
      r.y = lambda * (pr.p.x - r.x) - pr.p.y;
    }
    store_vec(out[j].x, r.x);
    store_vec(out[j].y, r.y);
  }
}

// ---- per-level bookkeeping ----
__global__ void __launch_bounds__(256)
    off_to_bounds_kernel(const uint32_t* off, size_t buckets, uint64_t* start, uint64_t* end) {
  const size_t g = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (g >= buckets) return;
  start[g] = off[g];
  end[g] = off[g + 1];
}
__global__ void __launch_bounds__(256) identity_kernel(uint32_t* v, size_t n) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k < n) v[k] = uint32_t(k);
}

// The second stream of a group's levels and the events that order it with
// the main one (created per call, released when their work is done).
struct side_t {
  cudaStream_t stream = nullptr;
  cudaEvent_t fwd[2] = {}, tree[2] = {};
  ~side_t() {
    for (cudaEvent_t e : {fwd[0], fwd[1], tree[0], tree[1]})
      if (e) cudaEventDestroy(e);
    if (stream) cudaStreamDestroy(stream);
  }
  cudaError_t init() {
    int least = 0, greatest = 0;
    SZK_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    SZK_TRY(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
    for (cudaEvent_t* e : {&fwd[0], &fwd[1], &tree[0], &tree[1]})
      SZK_TRY(cudaEventCreateWithFlags(e, cudaEventDisableTiming));
    return cudaSuccess;
  }
};

// Tree scratch of one half of a level of `threads` threads (a half holds at
// most threads / 2 + pair_block of them).
size_t half_work_elems(size_t threads) { return batch_inverse::inv_work_elems(threads / 2 + pair_block); }

template <class A, class F, class Src>
cudaError_t run_level(const affine_levels_t& a, const Src& src, size_t bound, F* pre, A* out, side_t& side,
                      cudaStream_t s) {
  SZK_TRY(launch_chunk_offsets(a.start, a.end, a.buckets, a.K, 2, a.counts, a.off, a.scan_temp, a.scan_bytes, s));
  pair_sources_kernel<<<grid_for(bound, sources_span), sources_block, 0, s>>>(a.start, a.end, a.off, a.buckets, bound,
                                                                              a.src);
  SZK_CHECK_LAUNCH();
  using timer_t = msm_detail::phase_timer_t;
  SZK_TRY(a.timer->mark(timer_t::affine_sources));
  const size_t threads = affine_pair_threads(bound);
  const unsigned blocks = unsigned(threads / pair_block);
  auto* tot = static_cast<F*>(a.tot);
  // Halves: blocks [0, h) and [h, blocks), each an independent batch.
  const unsigned b0[2] = {0, blocks / 2}, nb[2] = {blocks / 2, blocks - blocks / 2};
  F* work[2] = {static_cast<F*>(a.work), static_cast<F*>(a.work) + half_work_elems(threads)};
  for (int h = 0; h < 2; ++h) {
    if (nb[h] == 0) continue;
    pair_forward_kernel<A, F, Src><<<nb[h], pair_block, 0, s>>>(src, a.src, a.off, a.buckets, b0[h], pre, tot);
    SZK_CHECK_LAUNCH();
    SZK_TRY(cudaEventRecord(side.fwd[h], s));
    SZK_TRY(cudaStreamWaitEvent(side.stream, side.fwd[h], 0));
    F* half_tot = tot + size_t(b0[h]) * pair_block;
    SZK_TRY(batch_inverse::invert_array(half_tot, size_t(nb[h]) * pair_block, work[h], side.stream));
    SZK_TRY(cudaEventRecord(side.tree[h], side.stream));
  }
  SZK_TRY(a.timer->mark(timer_t::affine_forward));
  for (int h = 0; h < 2; ++h) {
    if (nb[h] == 0) continue;
    SZK_TRY(cudaStreamWaitEvent(s, side.tree[h], 0));
    if (h == 0) SZK_TRY(a.timer->mark(timer_t::affine_tree));  // the part not hidden
    pair_backward_kernel<A, F, Src><<<nb[h], pair_block, 0, s>>>(src, a.src, a.off, a.buckets, b0[h], pre, out, tot);
    SZK_CHECK_LAUNCH();
  }
  SZK_TRY(a.timer->mark(timer_t::affine_backward));
  off_to_bounds_kernel<<<grid_for(a.buckets, 256), 256, 0, s>>>(a.off, a.buckets, a.start, a.end);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

}  // namespace

size_t affine_level_bound(size_t in, size_t buckets) {
  const size_t out = (in + buckets) / 2 + 1;
  return out < in ? out : in;
}

size_t affine_work_elems(size_t threads) { return 2 * half_work_elems(threads); }

size_t affine_pair_threads(size_t bound) {
  const size_t per_block = size_t(pair_block) * pair_chunk;
  return (bound + per_block - 1) / per_block * pair_block;
}

template <class C>
cudaError_t run_affine_levels(const affine_levels_t& a, cudaStream_t s) {
  using A = typename C::acc_affine_type;
  using F = decltype(A::x);
  auto* pa = static_cast<A*>(a.pts_a);
  auto* pb = static_cast<A*>(a.pts_b);
  side_t side;
  SZK_TRY(side.init());
  size_t bound = a.entries;
  for (unsigned l = 0; l < a.levels; ++l) {
    bound = affine_level_bound(bound, a.buckets);
    A* out = l % 2 == 0 ? pa : pb;
    if (l == 0) {
      // Level 0's prefixes fill pts_b, not yet in use (2·|pts_b| >= bound).
      const gather_src_t<A> src{static_cast<const A*>(a.bases), a.vals};
      SZK_TRY((run_level<A, F>(a, src, bound, reinterpret_cast<F*>(pb), out, side, s)));
    } else {
      const array_src_t<A> src{l % 2 == 0 ? pb : pa};
      SZK_TRY((run_level<A, F>(a, src, bound, static_cast<F*>(a.pre), out, side, s)));
    }
  }
  identity_kernel<<<grid_for(bound, 256), 256, 0, s>>>(a.ident, bound);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

template cudaError_t run_affine_levels<g1_curve_t>(const affine_levels_t&, cudaStream_t);
template cudaError_t run_affine_levels<g2_curve_t>(const affine_levels_t&, cudaStream_t);

}  // namespace starzk::gpu
