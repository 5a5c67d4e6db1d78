// The witness map on the device (docs/prover.md step 1): y = M·w for the CSR
// matrices of a circuit or a .zkey, with the input rows and the zero padding
// of both key conventions, exactly as codelets/witness_map_into.cpp does it
// on the host. One kernel serves all three entry points.
//
// Work split. A block of 256 threads owns a tile of 256 consecutive output
// rows (grid-stride over tiles); each thread reads its row's extent from
// row_ptr and the row goes to one of three tiers by its length len:
//   len <= short_max (8): the thread sums the row alone. Filecoin-shaped rows
//     (1-3 terms) all land here, one thread per row, coalesced output.
//   short_max < len <= warp_max (1024): the warp takes such rows one at a
//     time (found with __ballot_sync), lane l summing terms l, l+32, ...,
//     then a shuffle tree (5 steps of 8 words, 5 field additions).
//   len > warp_max: queued in shared memory; after the tile's short and warp
//     rows the whole block sums each queued row (stride 256), then a warp
//     shuffle tree and a shared-memory sum of the 8 warp partials.
// So a long row never holds one thread for long: a row of L terms costs a
// warp ~L/32 steps (block: ~L/256) instead of L. No pre-pass and no scratch.
//
// One term v·w[col] (Montgomery form), v = val[k] for a plain matrix or
// dict[code[k]] for a coded one (src/groth16/r1cs.hpp). Coefficients are
// mostly ±1 and the witness mostly 0/1 (Filecoin), so the 128-multiply-add
// product (field.cuh) is skipped where a cheap 8-word compare says it is not
// needed:
//   w = 0      -> nothing (and the value is not even loaded);
//   val = 1    -> acc += w;      val = −1 -> acc −= w;
//   w = 1      -> acc += val;    otherwise acc += val·w (1M).
//
// Bytes per nonzero: col 4 + w[col] 32 (a gather; an L2 hit when a nearby
// row used that wire) + the value (skipped when w = 0): val 32 (plain) or
// code 2 (coded; the dictionary entry comes from the read-only cache, where
// a circuit's few hundred entries stay); per row: row_ptr 8 and the output
// 32 (snarkjs: + 32 read of a + 32 write of c for c = a∘b, fused into B's
// pass). The floor of a bellman witness map is therefore about
//   Σ_{A,B,C} ((4 + v)·nnz + 8·rows) + 3·32·n + 3·32·n_vars  bytes,
// v = 32 plain / 2 coded (every wire read once per matrix), at ~4.3 TB/s
// (H200 device copy, read + write counted): 7.0 GB plain, ~1.6 ms, for a
// 2^24 Filecoin-shaped circuit (93.2M nonzeros, 5.56 per row, 16.7M wires);
// coded, 4.2 GB.
// val, code and col are read once: streaming loads (ld.global.cs) keep them
// from evicting the witness out of L2; w and dict go through the read-only
// cache.
#include <algorithm>

#include "cuda/spmv_launch.cuh"

namespace starzk::gpu {
namespace {

constexpr unsigned spmv_block = 256;
constexpr unsigned full_mask = 0xffffffffu;

static_assert(sizeof(fr_t) == sizeof(dev_fr_t), "host and device Fr layouts differ");

// ---- 32-byte loads and stores as two 16-byte vectors (pointers 16-aligned) ----
SZK_D dev_fr_t from_u4(uint4 a, uint4 b) {
  dev_fr_t r;
  r.l[0] = a.x, r.l[1] = a.y, r.l[2] = a.z, r.l[3] = a.w;
  r.l[4] = b.x, r.l[5] = b.y, r.l[6] = b.z, r.l[7] = b.w;
  return r;
}
SZK_D dev_fr_t load_streaming(const dev_fr_t* p) {  // read once: evict first
  const uint4* q = reinterpret_cast<const uint4*>(p);
  return from_u4(__ldcs(q), __ldcs(q + 1));
}
SZK_D dev_fr_t load_cached(const dev_fr_t* p) {  // read-only cache (the witness)
  const uint4* q = reinterpret_cast<const uint4*>(p);
  return from_u4(__ldg(q), __ldg(q + 1));
}
SZK_D void store(dev_fr_t* p, const dev_fr_t& v) {
  uint4* q = reinterpret_cast<uint4*>(p);
  q[0] = make_uint4(v.l[0], v.l[1], v.l[2], v.l[3]);
  q[1] = make_uint4(v.l[4], v.l[5], v.l[6], v.l[7]);
}

// Term k's value: the 2-byte code streamed and its dictionary entry through
// the read-only cache, or the 32-byte value streamed. The branch is uniform
// over the block (one job per blockIdx.y).
SZK_D dev_fr_t term_value(const spmv_job_t& j, uint64_t t) {
  if (j.dict) return load_cached(j.dict + __ldcs(j.code + t));
  return load_streaming(j.val + t);
}

// acc += value(k)·w[col[k]], with the shortcuts of the file comment; term k
// lies at k − nnz_base of the job's arrays (a piece of a matrix).
SZK_D void add_term(dev_fr_t& acc, const spmv_job_t& j, const dev_fr_t* w, uint64_t k, const dev_fr_t& one,
                    const dev_fr_t& minus_one) {
  const uint64_t t = k - j.nnz_base;
  const uint32_t c = __ldcs(j.col + t);
  const dev_fr_t x = load_cached(w + c);
  if (x.is_zero()) return;
  const dev_fr_t v = term_value(j, t);
  if (v == one)
    acc += x;
  else if (v == minus_one)
    acc -= x;
  else if (x == one)
    acc += v;
  else
    acc += v * x;
}

// Sum over the 32 lanes (every lane gets the total): 5 rounds of an 8-word
// butterfly shuffle and one field addition.
SZK_D dev_fr_t warp_sum(dev_fr_t a) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    dev_fr_t o;
#pragma unroll
    for (int t = 0; t < 8; ++t) o.l[t] = __shfl_xor_sync(full_mask, a.l[t], off);
    a += o;
  }
  return a;
}

// Row i's value is final: store it (and the fused Hadamard product, if any).
SZK_D void emit(const spmv_job_t& j, uint64_t i, const dev_fr_t& v) {
  store(j.out + i, v);
  if (j.prod_out) store(j.prod_out + i, v.is_zero() ? v : v * load_streaming(j.prod_with + i));
}

__global__ void __launch_bounds__(spmv_block) spmv_kernel(const spmv_launch_t p) {
  __shared__ uint32_t s_n_long;                 // rows of this tile for the block tier
  __shared__ uint16_t s_long[spmv_block];       // their thread indices
  __shared__ dev_fr_t s_part[spmv_block / 32];  // per-warp partial sums of the block tier
  // A select rather than p.job[blockIdx.y]: no dynamic indexing of parameters.
  const spmv_job_t j = blockIdx.y == 0 ? p.job[0] : (blockIdx.y == 1 ? p.job[1] : p.job[2]);
  const dev_fr_t zero = dev_fr_t::zero(), one = dev_fr_t::one(), minus_one = zero - one;
  const unsigned lane = threadIdx.x & 31;

  for (uint64_t base = uint64_t(blockIdx.x) * spmv_block; base < p.n_out; base += uint64_t(gridDim.x) * spmv_block) {
    const uint64_t i = base + threadIdx.x;
    const bool live = i < p.n_out;
    const uint64_t gi = p.row0 + i;  // the row's index in the whole vector
    const bool input = live && gi >= j.in_begin && gi < j.in_end;
    uint64_t beg = 0, end = 0;
    if (live && !input && i < j.n_rows) {
      beg = __ldg(j.row_ptr + i);
      end = __ldg(j.row_ptr + i + 1);
    }
    const uint64_t len = end - beg;
    if (threadIdx.x == 0) s_n_long = 0;
    __syncthreads();

    // Tier 1: short rows, empty rows, padding and input rows, one thread each.
    if (len <= p.short_max) {
      dev_fr_t acc = input ? load_cached(p.w + (gi - j.in_begin)) : zero;
      for (uint64_t k = beg; k < end; ++k) add_term(acc, j, p.w, k, one, minus_one);
      if (live) emit(j, i, acc);
    } else if (len > p.warp_max) {
      s_long[atomicAdd(&s_n_long, 1u)] = uint16_t(threadIdx.x);
    }

    // Tier 2: each medium row of the warp, by the whole warp.
    unsigned pending = __ballot_sync(full_mask, len > p.short_max && len <= p.warp_max);
    while (pending) {
      const int src = __ffs(pending) - 1;
      pending &= pending - 1;
      const uint64_t rb = __shfl_sync(full_mask, beg, src), re = __shfl_sync(full_mask, end, src);
      dev_fr_t acc = zero;
      for (uint64_t k = rb + lane; k < re; k += 32) add_term(acc, j, p.w, k, one, minus_one);
      acc = warp_sum(acc);
      if (int(lane) == src) emit(j, i, acc);
    }
    __syncthreads();

    // Tier 3: each long row of the tile, by the whole block.
    const unsigned n_long = s_n_long;
    for (unsigned t = 0; t < n_long; ++t) {
      const uint64_t r = base + s_long[t];
      const uint64_t rb = __ldg(j.row_ptr + r), re = __ldg(j.row_ptr + r + 1);
      dev_fr_t acc = zero;
      for (uint64_t k = rb + threadIdx.x; k < re; k += spmv_block) add_term(acc, j, p.w, k, one, minus_one);
      acc = warp_sum(acc);
      if (lane == 0) s_part[threadIdx.x / 32] = acc;
      __syncthreads();
      if (threadIdx.x == 0) {
        dev_fr_t sum = s_part[0];
        for (unsigned q = 1; q < spmv_block / 32; ++q) sum += s_part[q];
        emit(j, r, sum);
      }
      __syncthreads();
    }
  }
}

// Row i of the R1CS holds when a_i·b_i = c_i; values are canonical
// Montgomery residues, so equality is limb by limb. The lowest failing row
// wins through atomicMin.
__global__ void __launch_bounds__(spmv_block)
    unsatisfied_kernel(const dev_fr_t* a, const dev_fr_t* b, const dev_fr_t* c, uint64_t rows,
                       unsigned long long* first) {
  const uint64_t stride = uint64_t(gridDim.x) * spmv_block;
  for (uint64_t i = uint64_t(blockIdx.x) * spmv_block + threadIdx.x; i < rows; i += stride)
    if (!(a[i] * b[i] == c[i])) atomicMin(first, (unsigned long long)i);
}

}  // namespace

namespace spmv_detail {

bool aligned16(const void* ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15) == 0; }
bool aligned2(const void* ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 1) == 0; }

bool view_ok(const csr_view_t& m, uint64_t n_out) {
  if (m.n_rows > n_out) return false;
  if (m.n_rows > 0 && m.row_ptr == nullptr) return false;
  if (m.dict) return aligned16(m.dict) && aligned2(m.code);
  return aligned16(m.val);
}

bool out_ok(const fr_t* d) { return d != nullptr && aligned16(d); }

spmv_job_t make_job(const csr_view_t& m, fr_t* d_out) {
  spmv_job_t j{};
  j.row_ptr = m.row_ptr;
  j.col = m.col;
  if (m.dict) {
    j.code = m.code;
    j.dict = reinterpret_cast<const dev_fr_t*>(m.dict);
  } else {
    j.val = reinterpret_cast<const dev_fr_t*>(m.val);
  }
  j.n_rows = m.n_rows;
  j.out = reinterpret_cast<dev_fr_t*>(d_out);
  return j;
}

cudaError_t launch(const spmv_launch_t& p, unsigned n_jobs, cudaStream_t stream) {
  if (p.n_out == 0) return cudaSuccess;
  const uint64_t tiles = (p.n_out + spmv_block - 1) / spmv_block;
  const dim3 grid(unsigned(tiles < (1u << 30) ? tiles : (1u << 30)), n_jobs);
  spmv_kernel<<<grid, spmv_block, 0, stream>>>(p);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

spmv_launch_t make_launch(const fr_t* d_w, uint64_t n_out, const spmv_tuning_t& tune) {
  spmv_launch_t p{};
  p.w = reinterpret_cast<const dev_fr_t*>(d_w);
  p.n_out = n_out;
  p.short_max = tune.short_max;
  p.warp_max = tune.warp_max;
  return p;
}

}  // namespace spmv_detail

using namespace spmv_detail;

cudaError_t spmv_fr(fr_t* d_out, size_t n_out, const csr_view_t& m, const fr_t* d_w, cudaStream_t stream,
                    const spmv_tuning_t& tune) {
  if (!view_ok(m, n_out)) return cudaErrorInvalidValue;
  if (n_out == 0) return cudaSuccess;
  if (!out_ok(d_out) || !aligned16(d_w) || (m.n_rows > 0 && d_w == nullptr)) return cudaErrorInvalidValue;
  spmv_launch_t p = make_launch(d_w, n_out, tune);
  p.job[0] = make_job(m, d_out);
  return launch(p, 1, stream);
}

cudaError_t qap_rows_bellman(fr_t* d_a, fr_t* d_b, fr_t* d_c, size_t n, const csr_view_t& A, const csr_view_t& B,
                             const csr_view_t& C, uint64_t n_constraints, uint64_t n_public, const fr_t* d_w,
                             cudaStream_t stream, const spmv_tuning_t& tune) {
  // n_constraints + n_public + 1 <= n, written so that it cannot overflow.
  if (n_constraints > n || n_public >= n - n_constraints) return cudaErrorInvalidValue;
  if (!view_ok(A, n) || !view_ok(B, n) || !view_ok(C, n)) return cudaErrorInvalidValue;
  if (!out_ok(d_a) || !out_ok(d_b) || !out_ok(d_c) || d_w == nullptr || !aligned16(d_w)) return cudaErrorInvalidValue;
  spmv_launch_t p = make_launch(d_w, n, tune);
  p.job[0] = make_job(A, d_a);
  p.job[0].in_begin = n_constraints;  // a[n_constraints + s] = w[s], s = 0..n_public
  p.job[0].in_end = n_constraints + n_public + 1;
  p.job[1] = make_job(B, d_b);
  p.job[2] = make_job(C, d_c);
  return launch(p, 3, stream);
}

cudaError_t first_unsatisfied_row(const fr_t* d_a, const fr_t* d_b, const fr_t* d_c, uint64_t rows, uint64_t* d_first,
                                  cudaStream_t stream) {
  static_assert(sizeof(uint64_t) == sizeof(unsigned long long));
  if (d_first == nullptr || (rows > 0 && (d_a == nullptr || d_b == nullptr || d_c == nullptr)))
    return cudaErrorInvalidValue;
  SZK_TRY(cudaMemsetAsync(d_first, 0xff, sizeof(uint64_t), stream));
  if (rows == 0) return cudaSuccess;
  const unsigned grid = unsigned(std::min<uint64_t>((rows + spmv_block - 1) / spmv_block, 1u << 16));
  unsatisfied_kernel<<<grid, spmv_block, 0, stream>>>(
      reinterpret_cast<const dev_fr_t*>(d_a), reinterpret_cast<const dev_fr_t*>(d_b),
      reinterpret_cast<const dev_fr_t*>(d_c), rows, reinterpret_cast<unsigned long long*>(d_first));
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

cudaError_t qap_rows_snarkjs(fr_t* d_a, fr_t* d_b, fr_t* d_c, size_t n, const csr_view_t& A, const csr_view_t& B,
                             const fr_t* d_w, cudaStream_t stream, const spmv_tuning_t& tune) {
  if (!view_ok(A, n) || !view_ok(B, n)) return cudaErrorInvalidValue;
  if (n == 0) return cudaSuccess;
  if (!out_ok(d_a) || !out_ok(d_b) || !out_ok(d_c) || d_w == nullptr || !aligned16(d_w)) return cudaErrorInvalidValue;
  // Pass 1: a = A·w. Pass 2 (same stream, so after pass 1): b = B·w and, as
  // each b_i is final, c_i = a_i·b_i (1M; nothing read where b_i = 0).
  spmv_launch_t pa = make_launch(d_w, n, tune);
  pa.job[0] = make_job(A, d_a);
  SZK_TRY(launch(pa, 1, stream));
  spmv_launch_t pb = make_launch(d_w, n, tune);
  pb.job[0] = make_job(B, d_b);
  pb.job[0].prod_out = reinterpret_cast<dev_fr_t*>(d_c);
  pb.job[0].prod_with = reinterpret_cast<const dev_fr_t*>(d_a);
  return launch(pb, 1, stream);
}

}  // namespace starzk::gpu
