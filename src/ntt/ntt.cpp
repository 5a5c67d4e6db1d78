// Radix-2 decimation-in-time NTT over F_r, multithreaded (see ntt.hpp).
//
// Stage s (s = 1..k, len = 2^s, half = len/2) combines pairs of length-half
// transforms already in bit-reversed position:
//   for each block start b (multiple of len) and 0 ≤ j < half:
//     w = ω_len^j = ω^(j·n/len) = twiddles[j · (n/len)]
//     u = a[b + j], v = w · a[b + j + half]
//     a[b + j] = u + v, a[b + j + half] = u − v            (1M + 2A)
// (Cormen et al., §30.3, ITERATIVE-FFT.) After k stages a holds the natural-
// order transform.
//
// Scheduling: stages with len ≤ block_size touch only one block of
// block_size consecutive elements (128 KiB, fits L2), so each block runs all
// of them as one task; the remaining log2(n/block_size) stages each spread
// their n/2 butterflies evenly over the threads.
//
// Inverse by reindexing: with F(a)_k = Σ_j a_j ω^(jk),
//   Σ_j a_j ω^(−jk) = Σ_j a_j ω^(j(n−k)) = F(a)_{(n−k) mod n},
// so intt(a) = n^−1 · (F(a)_0, F(a)_{n−1}, ..., F(a)_1): one forward
// transform, the reversal of entries 1..n−1, one scaling. No second table.
#include "ntt/ntt.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ntt/ntt_lanes.hpp"
#include "util/parallel.hpp"

namespace starzk {
namespace {

constexpr unsigned block_log = 12;  // 4096 elements × 32 bytes = 128 KiB
constexpr size_t min_grain = 1024;  // do not fork for less work than this

void check_size(std::span<fr_t> a, const domain_t& d, const char* what) {
  if (a.size() != d.size())
    throw std::invalid_argument(std::string("ntt: ") + what + ": vector of length " + std::to_string(a.size()) +
                                " on a domain of size " + std::to_string(d.size()));
}

// The low `bits` bits of i reversed (1 <= bits <= 64): the byte order
// reversed, then the nibbles, pairs and bits within each byte swapped, and
// the result shifted down to `bits` bits.
uint64_t reverse_bits(uint64_t i, unsigned bits) {
  uint64_t r = __builtin_bswap64(i);
  r = ((r >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((r & 0x0f0f0f0f0f0f0f0fULL) << 4);
  r = ((r >> 2) & 0x3333333333333333ULL) | ((r & 0x3333333333333333ULL) << 2);
  r = ((r >> 1) & 0x5555555555555555ULL) | ((r & 0x5555555555555555ULL) << 1);
  return r >> (64 - bits);
}

// Stages 1..last_log (len = 2..2^last_log) on a[0, len_block), where
// len_block = 2^last_log; tw_stride_base = n, so w = tw[j·n/len].
void local_stages(fr_t* a, size_t block, unsigned last_log, std::span<const fr_t> tw, size_t n) {
  for (unsigned s = 1; s <= last_log; ++s) {
    const size_t len = size_t(1) << s, half = len / 2, stride = n / len;
    for (size_t b = 0; b < block; b += len) {
      fr_t* lo = a + b;
      fr_t* hi = lo + half;
      // j = 0: w = 1, no multiplication.
      {
        const fr_t u = lo[0], v = hi[0];
        lo[0] = u + v;
        hi[0] = u - v;
      }
      for (size_t j = 1; j < half; ++j) {
        const fr_t u = lo[j];
        const fr_t v = hi[j] * tw[j * stride];
        lo[j] = u + v;
        hi[j] = u - v;
      }
    }
  }
}

// Where the lanes take a vector (ntt_lanes.hpp): long enough, a multiple of 8.
bool lanes_for(std::span<fr_t> a) {
  return a.size() >= (size_t(1) << ntt_lanes_min_log) && a.size() % 8 == 0 && ntt_lanes_available();
}

void forward(std::span<fr_t> a, const domain_t& d, unsigned threads) {
  const size_t n = a.size();
  if (n <= 1) return;
  const unsigned k = d.log_size();
  const std::span<const fr_t> tw = d.twiddles();
  bit_reverse_permute(a, threads);
  if (lanes_for(a)) return forward_lanes(a, tw, threads);

  // Stages inside blocks.
  const unsigned local_log = std::min(k, block_log);
  const size_t block = size_t(1) << local_log;
  parallel_tasks(n / block, threads, [&](size_t t) { local_stages(a.data() + t * block, block, local_log, tw, n); });

  // Stages across blocks: butterfly index t in [0, n/2) maps to block t / half
  // and offset j = t mod half.
  for (unsigned s = local_log + 1; s <= k; ++s) {
    const size_t len = size_t(1) << s, half = len / 2, stride = n / len;
    parallel_for(
        n / 2, threads,
        [&](size_t begin, size_t end) {
          size_t blk = begin / half, j = begin % half;
          for (size_t t = begin; t < end; ++t) {
            fr_t& lo = a[blk * len + j];
            fr_t& hi = a[blk * len + j + half];
            const fr_t u = lo;
            const fr_t v = hi * tw[j * stride];
            lo = u + v;
            hi = u - v;
            if (++j == half) {
              j = 0;
              ++blk;
            }
          }
        },
        min_grain);
  }
}

}  // namespace

void bit_reverse_permute(std::span<fr_t> a, unsigned threads) {
  const size_t n = a.size();
  if (n <= 2) return;
  if (!std::has_single_bit(n))
    throw std::invalid_argument("ntt: bit_reverse_permute: length " + std::to_string(n) + " is not a power of two");
  const unsigned bits = unsigned(std::countr_zero(n));
  // Each pair {i, rev(i)} is swapped once, by the chunk that owns the
  // smaller index; pairs are disjoint, so chunks never race.
  parallel_for(
      n, threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          const size_t r = reverse_bits(i, bits);
          if (i < r) std::swap(a[i], a[r]);
        }
      },
      min_grain);
}

void scale(std::span<fr_t> a, const fr_t& s, unsigned threads) {
  if (lanes_for(a)) return scale_lanes(a, s, false, threads);
  parallel_for(
      a.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) a[i] *= s;
      },
      min_grain);
}

void scale_by_powers(std::span<fr_t> a, const fr_t& s, unsigned threads) {
  if (lanes_for(a)) return scale_lanes(a, s, true, threads);
  parallel_for(
      a.size(), threads,
      [&](size_t begin, size_t end) {
        fr_t p = s.pow(uint64_t(begin));  // s^begin, then s^(i+1) = s^i · s
        for (size_t i = begin; i < end; ++i) {
          a[i] *= p;
          p *= s;
        }
      },
      min_grain);
}

void ntt(std::span<fr_t> a, const domain_t& d, unsigned threads) {
  check_size(a, d, "ntt");
  forward(a, d, threads);
}

void intt(std::span<fr_t> a, const domain_t& d, unsigned threads) {
  check_size(a, d, "intt");
  const size_t n = a.size();
  if (n == 0) return;
  forward(a, d, threads);
  if (lanes_for(a)) {  // the reversal alone, then the scaling in lanes
    std::reverse(a.begin() + 1, a.end());
    return scale_lanes(a, d.size_inv(), false, threads);
  }
  // a_0 ← n^−1 a_0; for 1 ≤ k ≤ n/2: swap a_k and a_{n−k} and scale both.
  const fr_t n_inv = d.size_inv();
  a[0] *= n_inv;
  parallel_for(
      n / 2, threads,
      [&](size_t begin, size_t end) {
        for (size_t k = begin + 1; k <= end; ++k) {
          const fr_t x = a[k] * n_inv;
          const fr_t y = a[n - k] * n_inv;
          a[k] = y;
          a[n - k] = x;  // k = n/2 (self-paired) is written twice with the same value
        }
      },
      min_grain);
}

void coset_ntt(std::span<fr_t> a, const domain_t& d, const fr_t& shift, unsigned threads) {
  check_size(a, d, "coset_ntt");
  scale_by_powers(a, shift, threads);  // coefficients of A(sX)
  forward(a, d, threads);              // A(s ω^i)
}

void coset_ntt(std::span<fr_t> a, const domain_t& d, unsigned threads) { coset_ntt(a, d, d.coset_gen(), threads); }

void coset_intt(std::span<fr_t> a, const domain_t& d, const fr_t& shift, unsigned threads) {
  check_size(a, d, "coset_intt");
  intt(a, d, threads);                           // coefficients of A(sX)
  scale_by_powers(a, shift.inverse(), threads);  // back to those of A(X)
}

void coset_intt(std::span<fr_t> a, const domain_t& d, unsigned threads) { coset_intt(a, d, d.coset_gen(), threads); }

}  // namespace starzk
