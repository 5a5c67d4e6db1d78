// Number-theoretic transforms over Fr on the device, sizes 2^1 .. 2^27, and
// the Groth16 H phase (ntt_h) as one call on a stream.
//
// Radix-2 butterflies, several stages per kernel in shared memory. A pass
// owns a run of k index bits [b0, b0 + k): a block loads every element whose
// other bits are fixed (2^k "rows") for G = 2^g consecutive values of the bits
// below b0 (so each row is G contiguous elements, coalesced), runs the k
// stages on that 2^k·G tile, and writes it back. E = 2^k·G <= 1024 elements
// (32 KiB of shared memory). n = 2^24 takes 4 passes.
//   DIF (Gentleman-Sande), natural -> bit-reversed, stages h = n/2 .. 1:
//     (x, y) at (i, i + h) -> (x + y, (x - y)·w_{2h}^(i mod h))
//   DIT (Cooley-Tukey), bit-reversed -> natural, stages h = 1 .. n/2:
//     (x, y) -> (x + w y, x - w y), w = w_{2h}^(i mod h)
// One Fr product per butterfly, plus one for the twiddle when h > 2^16
// (two-table lookup, ntt_domain.hpp). The inverse uses w^-1 and scales by 1/n
// in a separate element-wise pass that also applies any coset powers.
#include "cuda/field.cuh"
#include "cuda/ntt_domain.hpp"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
namespace {

constexpr unsigned tile_log = 10;  // E = 2^10 elements per block

struct tw_tables_t {
  const dev_fr_t* small;
  const dev_fr_t* lo;
  const dev_fr_t* hi;
  unsigned log_n, small_log, big_bits;
};

// w_{2h}^j, h = 2^b, j < h.
SZK_D dev_fr_t twiddle(const tw_tables_t& t, unsigned b, uint32_t j) {
  if (b <= t.small_log) return t.small[(1u << b) + j];
  const uint32_t x = j << (t.log_n - 1 - b);
  dev_fr_t w = t.lo[x & ((1u << t.big_bits) - 1)];
  const uint32_t hi = x >> t.big_bits;
  if (hi) w = w * t.hi[hi];
  return w;
}

template <bool dif>
__global__ void __launch_bounds__(256) pass_kernel(dev_fr_t* data, tw_tables_t tw, unsigned b0, unsigned k,
                                                   unsigned log_g) {
  __shared__ dev_fr_t sm[1u << tile_log];
  const unsigned L = tw.log_n;
  const unsigned E = 1u << (k + log_g), G = 1u << log_g;
  const size_t lo_chunks = size_t(1) << (b0 - log_g);
  const size_t hi = blockIdx.x / lo_chunks;
  const size_t lo_base = (blockIdx.x % lo_chunks) << log_g;
  const size_t base = (hi << (b0 + k)) | lo_base;
  (void)L;
  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    const size_t t = e >> log_g, g = e & (G - 1);
    sm[e] = data[base | (t << b0) | g];
  }
  __syncthreads();
  for (unsigned s = 0; s < k; ++s) {
    const unsigned tb = dif ? k - 1 - s : s;  // bit of the tile row index
    const unsigned b = b0 + tb;               // bit of the global index: h = 2^b
    for (unsigned q = threadIdx.x; q < E / 2; q += blockDim.x) {
      const unsigned g = q & (G - 1), r = q >> log_g;
      const unsigned low = r & ((1u << tb) - 1);
      const unsigned t0 = ((r >> tb) << (tb + 1)) | low;
      const unsigned e0 = (t0 << log_g) | g, e1 = e0 + ((1u << tb) << log_g);
      const uint32_t j = uint32_t((size_t(low) << b0) | (lo_base + g));  // i mod h
      const dev_fr_t w = twiddle(tw, b, j);
      const dev_fr_t x = sm[e0], y = sm[e1];
      if (dif) {
        sm[e0] = x + y;
        sm[e1] = (x - y) * w;
      } else {
        const dev_fr_t wy = y * w;
        sm[e0] = x + wy;
        sm[e1] = x - wy;
      }
    }
    __syncthreads();
  }
  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    const size_t t = e >> log_g, g = e & (G - 1);
    data[base | (t << b0) | g] = sm[e];
  }
}

// x_p <- x_p · c · s^(e(p)), e(p) = p or bitrev_L(p); c and/or s optional.
struct scale_t {
  const dev_fr_t* c = nullptr;   // one scalar (device), or none
  const dev_fr_t* lo = nullptr;  // powers of s: lo[e mod 2^bits]·hi[e >> bits]
  const dev_fr_t* hi = nullptr;
  unsigned bits = 0;
  bool bitrev = false;
};

__global__ void __launch_bounds__(256) scale_kernel(dev_fr_t* data, size_t n, unsigned L, scale_t sc) {
  const size_t p = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (p >= n) return;
  dev_fr_t x = data[p];
  if (sc.c) x = x * *sc.c;
  if (sc.lo) {
    const uint32_t e = sc.bitrev ? (__brev(uint32_t(p)) >> (32 - L)) : uint32_t(p);
    x = x * sc.lo[e & ((1u << sc.bits) - 1)];
    const uint32_t h = e >> sc.bits;
    if (h) x = x * sc.hi[h];
  }
  data[p] = x;
}

__global__ void __launch_bounds__(256) bitrev_kernel(dev_fr_t* data, size_t n, unsigned L) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const size_t j = __brev(uint32_t(i)) >> (32 - L);
  if (i < j) {
    const dev_fr_t t = data[i];
    data[i] = data[j];
    data[j] = t;
  }
}

// h = (a·b - c)·z (z optional), written to a.
__global__ void __launch_bounds__(256) abc_kernel(dev_fr_t* a, const dev_fr_t* b, const dev_fr_t* c, size_t n,
                                                  const dev_fr_t* z) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  dev_fr_t h = a[i] * b[i] - c[i];
  if (z) h = h * *z;
  a[i] = h;
}

struct domain_view_t {
  ntt_layout_t t;
  const dev_fr_t* d;
  tw_tables_t tables(bool inverse) const {
    return tw_tables_t{d + (inverse ? t.small_inv : t.small_fwd), d + (inverse ? t.big_lo_inv : t.big_lo_fwd),
                       d + (inverse ? t.big_hi_inv : t.big_hi_fwd), t.log_n, t.small_log, t.big_bits};
  }
  scale_t coset(bool inverse, bool bitrev, bool with_n_inv) const {
    scale_t s;
    s.c = with_n_inv ? d + t.scalars : nullptr;
    s.lo = d + (inverse ? t.coset_inv_lo : t.coset_lo);
    s.hi = d + (inverse ? t.coset_inv_hi : t.coset_hi);
    s.bits = t.coset_bits;
    s.bitrev = bitrev;
    return s;
  }
  scale_t n_inv() const {
    scale_t s;
    s.c = d + t.scalars;
    return s;
  }
};

// The radix-2 stages only (no scaling): DIF or DIT with forward or inverse roots.
cudaError_t run_passes(dev_fr_t* data, const domain_view_t& dom, bool dif, bool inverse, unsigned block,
                       cudaStream_t s) {
  const unsigned L = dom.t.log_n;
  const tw_tables_t tw = dom.tables(inverse);
  const size_t n = size_t(1) << L;
  auto launch = [&](unsigned b0, unsigned k, unsigned log_g) -> cudaError_t {
    const unsigned blocks = unsigned(n >> (k + log_g));
    const unsigned threads = std::min<unsigned>(block, 1u << (k + log_g - 1));
    if (dif) pass_kernel<true><<<blocks, threads, 0, s>>>(data, tw, b0, k, log_g);
    else pass_kernel<false><<<blocks, threads, 0, s>>>(data, tw, b0, k, log_g);
    return cudaGetLastError();
  };
  if (dif) {
    unsigned top = L;
    while (top > 0) {
      if (top <= tile_log) {
        SZK_TRY(launch(0, top, 0));
        top = 0;
      } else {
        SZK_TRY(launch(top - 6, 6, 4));
        top -= 6;
      }
    }
  } else {
    unsigned b0 = std::min(L, tile_log);
    SZK_TRY(launch(0, b0, 0));
    while (b0 < L) {
      const unsigned k = std::min(6u, L - b0);
      SZK_TRY(launch(b0, k, 4));
      b0 += k;
    }
  }
  return cudaSuccess;
}

cudaError_t scale(dev_fr_t* data, const domain_view_t& dom, const scale_t& sc, cudaStream_t s) {
  const size_t n = size_t(1) << dom.t.log_n;
  scale_kernel<<<grid_for(n, 256), 256, 0, s>>>(data, n, dom.t.log_n, sc);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

cudaError_t bitrev(dev_fr_t* data, unsigned L, cudaStream_t s) {
  const size_t n = size_t(1) << L;
  bitrev_kernel<<<grid_for(n, 256), 256, 0, s>>>(data, n, L);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

}  // namespace

cudaError_t ntt(fr_t* d_data_h, unsigned log_n, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset,
                const void* d_domain, cudaStream_t s, const ntt_tuning_t& tune) {
  if (log_n < 1 || log_n > ntt_max_log || !d_data_h || !d_domain) return cudaErrorInvalidValue;
  if (tune.block == 0 || tune.block > 256 || (tune.block & (tune.block - 1))) return cudaErrorInvalidValue;
  auto* d = reinterpret_cast<dev_fr_t*>(d_data_h);
  const domain_view_t dom{ntt_layout_t::make(log_n), static_cast<const dev_fr_t*>(d_domain)};
  const bool inverse = dir == ntt_dir_t::inverse;
  const bool dif = order != ntt_order_t::reversed_to_natural;
  const bool in_rev = order == ntt_order_t::reversed_to_natural;
  const bool out_rev = order == ntt_order_t::natural_to_reversed;
  if (!inverse && coset == ntt_coset_t::coset) SZK_TRY(scale(d, dom, dom.coset(false, in_rev, false), s));
  SZK_TRY(run_passes(d, dom, dif, inverse, tune.block, s));
  if (order == ntt_order_t::natural_to_natural) SZK_TRY(bitrev(d, log_n, s));
  if (inverse) {
    const scale_t sc = coset == ntt_coset_t::coset ? dom.coset(true, out_rev, true) : dom.n_inv();
    SZK_TRY(scale(d, dom, sc, s));
  }
  return cudaSuccess;
}

cudaError_t ntt_h(fr_t* d_a, fr_t* d_b, fr_t* d_c, unsigned log_n, root_convention_t conv, const void* d_domain,
                  cudaStream_t s, const ntt_tuning_t& tune) {
  if (log_n < 1 || log_n > ntt_max_log || !d_a || !d_b || !d_c || !d_domain) return cudaErrorInvalidValue;
  const domain_view_t dom{ntt_layout_t::make(log_n), static_cast<const dev_fr_t*>(d_domain)};
  const size_t n = size_t(1) << log_n;
  dev_fr_t* v[3] = {reinterpret_cast<dev_fr_t*>(d_a), reinterpret_cast<dev_fr_t*>(d_b),
                    reinterpret_cast<dev_fr_t*>(d_c)};
  for (dev_fr_t* x : v) {
    // iNTT natural -> bit-reversed; coefficient k sits at position bitrev(k):
    // scale by (1/n)·g^k there; NTT bit-reversed -> natural gives the values on gH.
    SZK_TRY(run_passes(x, dom, true, true, tune.block, s));
    SZK_TRY(scale(x, dom, dom.coset(false, true, true), s));
    SZK_TRY(run_passes(x, dom, false, false, tune.block, s));
  }
  const bool bellman = conv == root_convention_t::bellman;
  abc_kernel<<<grid_for(n, 256), 256, 0, s>>>(v[0], v[1], v[2], n, bellman ? dom.d + dom.t.scalars + 1 : nullptr);
  SZK_CHECK_LAUNCH();
  if (bellman) {
    // Coset iNTT: natural -> bit-reversed, (1/n)·g^-k at position bitrev(k),
    // then one bit-reversal pass so h comes out in natural order for the MSM.
    SZK_TRY(run_passes(v[0], dom, true, true, tune.block, s));
    SZK_TRY(scale(v[0], dom, dom.coset(true, true, true), s));
    SZK_TRY(bitrev(v[0], log_n, s));
  }
  return cudaSuccess;
}

}  // namespace starzk::gpu
