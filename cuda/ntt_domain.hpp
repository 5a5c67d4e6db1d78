// Layout of one NTT domain's tables in device memory (internal header, shared
// by the host builder ntt_domain.cpp and the kernels in ntt.cu).
//
// n = 2^L. All entries are fr_t (32 bytes, Montgomery). Stage twiddles are
// w_{2h}^j for a butterfly of half-size h = 2^b and j < h:
//   small[h + j] = w_{2h}^j for b <= S (S = min(L-1, 16)): 2^(S+1) entries,
//     contiguous per stage and small enough to stay in L2;
//   otherwise w_{2h}^j = w_n^x with x = j·2^(L-1-b) < 2^(L-1), read from the
//     full table full[x] = w_n^x (n/2 entries, only when L-1 > S). It costs
//     n·16 bytes per direction (256 MiB at 2^24, 2 GiB at 2^27) and saves the
//     extra Fr product per butterfly of the former lo·hi split.
// The full tables are built on the device from lo[x mod 2^B] and hi[x >> B]
// (B = ceil((L-1)/2)), which the host computes (O(sqrt n) work).
// Coset powers g^k (k < n): clo[k mod 2^C]·chi[k >> C], C = ceil(L/2); the
// *_n variants of clo carry the factor 1/n as well (an inverse transform's
// scaling folded into the coset table: one product less per element).
// Each set exists for the forward and inverse roots (g and g^-1);
// scalars[0] = 1/n, scalars[1] = (g^n - 1)^-1, scalars[2] = g^n.
// The host copies everything before full_fwd; the full tables come last.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cuda_runtime_api.h>

namespace starzk::gpu {

struct ntt_layout_t {
  unsigned log_n, small_log, big_bits, coset_bits;
  size_t small_len, big_lo_len, big_hi_len, coset_lo_len, coset_hi_len, full_len;
  // Element offsets of each table.
  size_t small_fwd, small_inv, big_lo_fwd, big_hi_fwd, big_lo_inv, big_hi_inv;
  size_t coset_lo, coset_hi, coset_inv_lo, coset_inv_hi, coset_lo_n, coset_inv_lo_n, scalars;
  size_t full_fwd, full_inv, total;

  static ntt_layout_t make(unsigned L) {
    ntt_layout_t t{};
    t.log_n = L;
    const unsigned half_bits = L - 1;               // twiddle exponents are < n/2
    t.small_log = half_bits < 16 ? half_bits : 16;  // 2^17 entries, 4 MiB: stays in L2
    t.big_bits = (half_bits + 1) / 2;
    t.coset_bits = (L + 1) / 2;
    t.small_len = size_t(2) << t.small_log;
    t.big_lo_len = size_t(1) << t.big_bits;
    t.big_hi_len = size_t(1) << (half_bits - t.big_bits);
    t.coset_lo_len = size_t(1) << t.coset_bits;
    t.coset_hi_len = size_t(1) << (L - t.coset_bits);
    t.full_len = half_bits > t.small_log ? size_t(1) << half_bits : 0;
    size_t o = 0;
    t.small_fwd = o;
    o += t.small_len;
    t.small_inv = o;
    o += t.small_len;
    t.big_lo_fwd = o;
    o += t.big_lo_len;
    t.big_hi_fwd = o;
    o += t.big_hi_len;
    t.big_lo_inv = o;
    o += t.big_lo_len;
    t.big_hi_inv = o;
    o += t.big_hi_len;
    t.coset_lo = o;
    o += t.coset_lo_len;
    t.coset_hi = o;
    o += t.coset_hi_len;
    t.coset_inv_lo = o;
    o += t.coset_lo_len;
    t.coset_inv_hi = o;
    o += t.coset_hi_len;
    t.coset_lo_n = o;
    o += t.coset_lo_len;
    t.coset_inv_lo_n = o;
    o += t.coset_lo_len;
    t.scalars = o;
    o += 4;
    o = (o + 7) & ~size_t(7);  // 256-byte aligned full tables
    t.full_fwd = o;
    o += t.full_len;
    t.full_inv = o;
    o += t.full_len;
    t.total = o;
    return t;
  }
};

// Fills full_fwd / full_inv from the lo / hi tables already on the device
// (ntt.cu; enqueued on `stream` after the host copy). No-op when full_len = 0.
cudaError_t ntt_expand_twiddles(void* d_domain, const ntt_layout_t& t, cudaStream_t stream);

}  // namespace starzk::gpu
