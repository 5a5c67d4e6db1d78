// Steps 0-2 of the MSM (msm.cu's file comment): the live terms, their bit
// lengths and each window's non-zero digit count, the signed digits of a
// window group (only the non-zero ones in a window where at least an eighth
// are zero), and the run bounds of the sorted keys. The curve does not
// enter here.
// Included by msm.cu only.
#pragma once

#include "cuda/msm_plan.cuh"

namespace starzk::gpu::msm_detail {

// Signed c-bit digit w of the canonical scalar s (step 1 of the file
// comment), windows taken in order from 0 with `carry` threaded through:
// returns the key |d| and sets *sign for d < 0.
SZK_D uint32_t signed_digit(const dev_fr_t& s, unsigned w, unsigned c, uint32_t& carry, uint32_t* sign) {
  const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
  const unsigned pos = w * c, limb = pos / 32, off = pos % 32;
  uint32_t v = 0;
  if (limb < 8) {
    v = s.l[limb] >> off;
    if (off && limb + 1 < 8) v |= s.l[limb + 1] << (32 - off);
  }
  v = (v & mask) + carry;
  carry = 0;
  *sign = 0;
  if (v > half) {  // d = v - 2^c < 0
    carry = 1;
    *sign = sign_bit;
    return (1u << c) - v;
  }
  return v;
}

// Whether step 1 writes only the non-zero digits of a window that has nz of
// them among m live terms (host and device decide alike).
SZK_HD bool compact_window(size_t nz, size_t m) { return nz < m - m / 8; }

// ---- 0. live terms ----
// Bit length of a canonical scalar (0 for zero).
SZK_D unsigned bit_length(const dev_fr_t& s) {
#pragma unroll
  for (int i = 7; i >= 0; --i)
    if (s.l[i]) return 32 * unsigned(i) + 32 - __clz(s.l[i]);
  return 0;
}

// Adds each window's non-zero digits of the warp's scalars s (zero where a
// lane has no term) to counts[0..W), one ballot per window and warp.
SZK_D void count_window_digits(const dev_fr_t& s, unsigned c, unsigned W, uint32_t* counts) {
  uint32_t carry = 0, sign;
  for (unsigned w = 0; w < W; ++w) {
    const unsigned k = __popc(__ballot_sync(0xffffffffu, signed_digit(s, w, c, carry, &sign) != 0));
    if ((threadIdx.x & 31) == 0 && k) atomicAdd(&counts[w], k);
  }
}

// Adds a block's k counters (shared: per window, per bit length) to the
// grid's, one atomic per non-zero counter; every thread of the block calls
// it after a barrier.
SZK_D void flush_counts(const uint32_t* block_counts, unsigned k, uint32_t* grid_counts) {
  for (unsigned j = threadIdx.x; j < k; j += blockDim.x)
    if (block_counts[j]) atomicAdd(&grid_counts[j], block_counts[j]);
}

// Flags the live terms (live_flag: short or long for the window c, 0 for
// dead ones), counts each window's non-zero digits over them and the live
// scalars per bit length (scalar_bits bins: the long ones' count, and
// plan_t::data_window).
__global__ void __launch_bounds__(256) live_kernel(const dev_fr_t* scalars, const uint32_t* skip, size_t n, unsigned c,
                                                   unsigned W, uint8_t* live, uint32_t* nonzero, uint32_t* lengths) {
  __shared__ uint32_t counts[max_windows];
  __shared__ uint32_t bins[scalar_bits];
  for (unsigned w = threadIdx.x; w < W; w += blockDim.x) counts[w] = 0;
  for (unsigned b = threadIdx.x; b < scalar_bits; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  bool is_live = false;
  if (i < n) {
    const bool skipped = skip && ((skip[i >> 5] >> (i & 31)) & 1);
    is_live = !skipped && !scalars[i].is_zero();
  }
  // Every lane runs the windows and the length vote.
  const dev_fr_t s = is_live ? scalars[i].from_mont() : dev_fr_t::zero();
  const unsigned len = bit_length(s);  // 0: no live term
  if (i < n) live[i] = is_live ? live_flag(len, c) : 0;
  count_window_digits(s, c, W, counts);
  const unsigned peers = __match_any_sync(0xffffffffu, len);
  if (len && (threadIdx.x & 31) == unsigned(__ffs(peers) - 1)) atomicAdd(&bins[len], __popc(peers));
  __syncthreads();
  flush_counts(counts, W, nonzero);
  flush_counts(bins, scalar_bits, lengths);
}

// The non-zero digits per window again, over the m live terms idx[0..m),
// for a window chosen after step 0 (plan_t::data_window), and the live
// terms' flags for that window.
__global__ void __launch_bounds__(256) count_kernel(const dev_fr_t* scalars, const uint32_t* idx, size_t m, unsigned c,
                                                    unsigned W, uint8_t* live, uint32_t* nonzero) {
  __shared__ uint32_t counts[max_windows];
  for (unsigned w = threadIdx.x; w < W; w += blockDim.x) counts[w] = 0;
  __syncthreads();
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const dev_fr_t s = k < m ? scalars[idx[k]].from_mont() : dev_fr_t::zero();
  if (k < m) live[idx[k]] = live_flag(bit_length(s), c);
  count_window_digits(s, c, W, counts);
  __syncthreads();
  flush_counts(counts, W, nonzero);
}

// ---- 1. digits ----
// Term k of idx[0..count) (a point index); the windows [wa, wb) of the
// group that starts at window wg are written, window w from (w - wg)·m on:
// at k, or, in a compacted window (compact_window over nonzero[w]), its
// non-zero digits only, at places taken from cursor[w - wg] (zero before
// the group's launches) one block at a time. idx is the live list (count =
// m), or, for windows wa >= 1 that are all compacted, the long list
// (step 0c): a short scalar has no non-zero digit there. Order within a
// window is free: the sort orders by key, and a bucket's sum does not
// depend on the order of its points. Compact = false (no window written
// compacted, as with random scalars) is the plain loop: no test, barrier
// or shared array.
template <bool Compact>
__global__ void __launch_bounds__(256)
    digits_kernel(const dev_fr_t* scalars, const uint32_t* idx, size_t count, size_t m, unsigned c, unsigned wg,
                  unsigned wa, unsigned wb, const uint32_t* nonzero, uint32_t* cursor, uint32_t* keys, uint32_t* vals) {
  constexpr unsigned warps = 256 / 32;
  __shared__ uint32_t warp_base[warps + 1];  // the block's base last
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const bool in = k < count;  // with Compact every thread stays for the block's barriers
  if (!Compact && !in) return;
  const uint32_t i = in ? idx[k] : 0;
  const dev_fr_t s = in ? scalars[i].from_mont() : dev_fr_t::zero();
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  uint32_t carry = 0;
  for (unsigned w = 0; w < wb; ++w) {
    uint32_t sign;
    const uint32_t key = signed_digit(s, w, c, carry, &sign);
    if (w < wa) continue;
    uint32_t* kw = keys + (w - wg) * m;
    uint32_t* vw = vals + (w - wg) * m;
    if (!Compact || !compact_window(nonzero[w], m)) {  // the same for the whole grid
      if (in) {
        kw[k] = key;
        vw[k] = i | sign;
      }
      continue;
    }
    const uint32_t ballot = __ballot_sync(0xffffffffu, key != 0);
    if (lane == 0) warp_base[warp] = __popc(ballot);
    __syncthreads();
    if (threadIdx.x == 0) {  // the warps' places in the block, the block's in the window
      uint32_t sum = 0;
      for (unsigned j = 0; j < warps; ++j) {
        const uint32_t v = warp_base[j];
        warp_base[j] = sum;
        sum += v;
      }
      warp_base[warps] = sum ? atomicAdd(&cursor[w - wg], sum) : 0;
    }
    __syncthreads();
    if (key != 0) {
      const uint32_t at = warp_base[warps] + warp_base[warp] + __popc(ballot & ((1u << lane) - 1));
      kw[at] = key;
      vw[at] = i | sign;
    }
    __syncthreads();  // warp_base is rewritten for the next window
  }
}

// Entries of window w (absolute) of the group: its non-zero digits when
// compacted, else one per live term.
SZK_HD size_t window_entries(const uint32_t* nonzero, unsigned w, size_t m) {
  return compact_window(nonzero[w], m) ? nonzero[w] : m;
}

// ---- 2. run boundaries of the sorted keys ----
// Window w of the group holds window_entries(w0 + w) sorted keys from w·m on.
__global__ void __launch_bounds__(256)
    bounds_kernel(const uint32_t* keys, size_t m, size_t entries, unsigned w0, const uint32_t* nonzero, unsigned K,
                  uint64_t* start, uint64_t* end) {
  const size_t k = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (k >= entries) return;
  const size_t w = k / m, local = k - w * m, len = window_entries(nonzero, unsigned(w0 + w), m);
  if (local >= len) return;
  const uint32_t key = keys[k];
  const size_t g = w * (K + 1) + key;
  if (local == 0 || keys[k - 1] != key) start[g] = k;
  if (local == len - 1 || keys[k + 1] != key) end[g] = k + 1;
}

}  // namespace starzk::gpu::msm_detail
