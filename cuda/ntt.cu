// Number-theoretic transforms over Fr on the device, sizes 2^1 .. 2^27, and
// the Groth16 H phase (ntt_h) as one call on a stream.
//
// Several radix-2 stages per kernel in shared memory. A pass owns a run of k
// index bits [b0, b0 + k): a block loads every element whose other bits are
// fixed (2^k "rows") for G = 2^g consecutive values of the bits below b0 (so
// each row is G contiguous elements, coalesced), runs the k stages on that
// 2^k·G tile, and writes it back. E = 2^k·G <= 2^11 elements (64 KiB of
// dynamic shared memory). One pass takes 11 bits with G = 1; the bits above
// go to as few passes as rows of G >= 8 (256 contiguous bytes) allow, split
// evenly, with G = 16 where a pass's bits leave room: n = 2^24 takes 3
// passes (DIF 7 + 6 + 11 bits, DIT 11 + 7 + 6), n = 2^27 also 3 (8 + 8 + 11,
// G = 8), where rows of 16 would take 4 (7 + 7 + 2 + 11).
//   DIF (Gentleman-Sande), natural -> bit-reversed, stages h = n/2 .. 1:
//     (x, y) at (i, i + h) -> (x + y, (x - y)·w_{2h}^(i mod h))
//   DIT (Cooley-Tukey), bit-reversed -> natural, stages h = 1 .. n/2:
//     (x, y) -> (x + w y, x - w y), w = w_{2h}^(i mod h)
// Stages go in pairs: a thread takes the 4 elements of a radix-4 group into
// registers and runs both radix-2 stages there (2 butterflies each), so the
// tile crosses shared memory and a barrier once per two stages. In a prime
// field a radix-4 butterfly saves no product (w_4 is no cheap constant), so
// the count stays 1M per butterfly: (n/2)·log2(n) products per transform.
// Every twiddle is one table load (ntt_domain.hpp: per-stage table for
// h <= 2^16, full table of w_n^x above), no product; with a lean domain (no
// full table) a twiddle above 2^16 is lo·hi, one product.
// Scalings (1/n, coset powers) ride on the first pass's loads or the last
// pass's stores, so they cost no extra trip through device memory.
#include "cuda/field.cuh"
#include "cuda/ntt_domain.hpp"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
namespace {

constexpr unsigned max_tile_log = 11;  // E <= 2^11 elements = 64 KiB of shared memory
constexpr unsigned row_log = 4;        // G = 16 consecutive elements per row (512 B) where a pass leaves room
constexpr unsigned min_row_log = 3;    // G >= 8 (256 B): rows stay whole DRAM bursts
constexpr unsigned pass_threads = 256;

struct tw_tables_t {
  const dev_fr_t* small;
  const dev_fr_t* full;             // full tables (ntt_tables_t::full)
  const dev_fr_t *big_lo, *big_hi;  // their factors (ntt_tables_t::lean)
  unsigned log_n, small_log, big_bits;
};

// w_{2h}^j, h = 2^b, j < h: one load, or with lean tables above the small
// ones w_n^x = lo[x mod 2^B]·hi[x >> B] (two loads and one product).
template <bool lean>
SZK_D dev_fr_t twiddle(const tw_tables_t& t, unsigned b, uint32_t j) {
  if (b <= t.small_log) return t.small[(1u << b) + j];
  if (!lean) return t.full[size_t(j) << (t.log_n - 1 - b)];
  const uint32_t x = j << (t.log_n - 1 - b);
  return t.big_lo[x & ((1u << t.big_bits) - 1)] * t.big_hi[x >> t.big_bits];
}

// x_p <- x_p · c · s^(e(p)), e(p) = p or bitrev_L(p); c and/or s optional.
// `lo` may already include c (the *_n coset tables), then c is null.
struct scale_t {
  const dev_fr_t* c = nullptr;   // one scalar (device), or none
  const dev_fr_t* lo = nullptr;  // powers of s: lo[e mod 2^bits]·hi[e >> bits]
  const dev_fr_t* hi = nullptr;
  unsigned bits = 0;
  bool bitrev = false;
  SZK_HD bool active() const { return c || lo; }
};

SZK_D dev_fr_t apply_scale(const scale_t& sc, dev_fr_t x, size_t p, unsigned L) {
  if (sc.c) x = x * *sc.c;
  if (sc.lo) {
    const uint32_t e = sc.bitrev ? (__brev(uint32_t(p)) >> (32 - L)) : uint32_t(p);
    x = x * sc.lo[e & ((1u << sc.bits) - 1)];
    const uint32_t h = e >> sc.bits;
    if (h) x = x * sc.hi[h];
  }
  return x;
}

// One radix-2 butterfly in registers.
template <bool dif>
SZK_D void bfly(dev_fr_t& x, dev_fr_t& y, const dev_fr_t& w) {
  if (dif) {
    const dev_fr_t d = x - y;
    x = x + y;
    y = d * w;
  } else {
    const dev_fr_t wy = y * w;
    y = x - wy;
    x = x + wy;
  }
}

struct pass_args_t {
  unsigned b0, k, log_g;
  scale_t pre, post;  // applied at load / at store (each only when active)
};

// Three blocks per SM (80 registers; the DIF form spills 40 bytes): while
// one block waits at a barrier two others still issue; measured against two
// blocks (96 registers) on the H200 in docs/benchmarks.md ("The G1 MSM under
// 100 ms", "NTT: three blocks per SM").
constexpr unsigned pass_min_blocks = 3;
template <bool dif, bool lean>
__global__ void __launch_bounds__(pass_threads, pass_min_blocks)
    pass_kernel(dev_fr_t* data, tw_tables_t tw, pass_args_t a) {
  extern __shared__ dev_fr_t sm[];
  const unsigned b0 = a.b0, k = a.k, log_g = a.log_g;
  const unsigned E = 1u << (k + log_g), G = 1u << log_g;
  const size_t lo_chunks = size_t(1) << (b0 - log_g);
  const size_t hi = blockIdx.x / lo_chunks;
  const size_t lo_base = (blockIdx.x % lo_chunks) << log_g;
  const size_t base = (hi << (b0 + k)) | lo_base;
  const bool pre = a.pre.active(), post = a.post.active();
  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    const size_t p = base | (size_t(e >> log_g) << b0) | (e & (G - 1));
    dev_fr_t x = data[p];
    if (pre) x = apply_scale(a.pre, x, p, tw.log_n);
    sm[e] = x;
  }
  __syncthreads();
  // Stage order: DIF runs tile bits k-1 .. 0, DIT 0 .. k-1. Pairs of stages
  // (tl, tl + 1) go through registers; an odd one out runs alone (DIF: the
  // last, bit 0; DIT: the last, bit k-1).
  const unsigned pairs = k / 2;
  for (unsigned s = 0; s < pairs; ++s) {
    const unsigned tl = dif ? k - 2 - 2 * s : 2 * s;  // lower tile bit of the pair
    const unsigned u = 1u << tl;                      // row distance of the lower stage
    for (unsigned q = threadIdx.x; q < E / 4; q += blockDim.x) {
      const unsigned g = q & (G - 1), r = q >> log_g;
      const unsigned low = r & (u - 1);                   // row bits below tl
      const unsigned t0 = ((r >> tl) << (tl + 2)) | low;  // bits tl, tl+1 zero
      const unsigned e0 = (t0 << log_g) | g, d1 = u << log_g, d2 = d1 << 1;
      const uint32_t gl = uint32_t(lo_base + g);
      // i mod h for the stage at bit b0+tl (both pairs) and at b0+tl+1
      // (pair (t0, t0+2u): row bits below tl+1 are `low`; pair (t0+u, t0+3u): low + u).
      const uint32_t j_lo = (uint32_t(low) << b0) | gl;
      const uint32_t j_hi1 = (uint32_t(low + u) << b0) | gl;
      const dev_fr_t w_lo = twiddle<lean>(tw, b0 + tl, j_lo);
      const dev_fr_t w_h0 = twiddle<lean>(tw, b0 + tl + 1, j_lo);
      const dev_fr_t w_h1 = twiddle<lean>(tw, b0 + tl + 1, j_hi1);
      dev_fr_t x0 = sm[e0], x1 = sm[e0 + d1], x2 = sm[e0 + d2], x3 = sm[e0 + d1 + d2];
      if (dif) {
        bfly<true>(x0, x2, w_h0);
        bfly<true>(x1, x3, w_h1);
        bfly<true>(x0, x1, w_lo);
        bfly<true>(x2, x3, w_lo);
      } else {
        bfly<false>(x0, x1, w_lo);
        bfly<false>(x2, x3, w_lo);
        bfly<false>(x0, x2, w_h0);
        bfly<false>(x1, x3, w_h1);
      }
      sm[e0] = x0;
      sm[e0 + d1] = x1;
      sm[e0 + d2] = x2;
      sm[e0 + d1 + d2] = x3;
    }
    __syncthreads();
  }
  if (k & 1) {
    const unsigned tb = dif ? 0 : k - 1;
    for (unsigned q = threadIdx.x; q < E / 2; q += blockDim.x) {
      const unsigned g = q & (G - 1), r = q >> log_g;
      const unsigned low = r & ((1u << tb) - 1);
      const unsigned t0 = ((r >> tb) << (tb + 1)) | low;
      const unsigned e0 = (t0 << log_g) | g, e1 = e0 + ((1u << tb) << log_g);
      const uint32_t j = (uint32_t(low) << b0) | uint32_t(lo_base + g);  // i mod h
      const dev_fr_t w = twiddle<lean>(tw, b0 + tb, j);
      dev_fr_t x = sm[e0], y = sm[e1];
      bfly<dif>(x, y, w);
      sm[e0] = x;
      sm[e1] = y;
    }
    __syncthreads();
  }
  for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
    const size_t p = base | (size_t(e >> log_g) << b0) | (e & (G - 1));
    dev_fr_t x = sm[e];
    if (post) x = apply_scale(a.post, x, p, tw.log_n);
    data[p] = x;
  }
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
__global__ void __launch_bounds__(256)
    abc_kernel(dev_fr_t* a, const dev_fr_t* b, const dev_fr_t* c, size_t n, const dev_fr_t* z) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  dev_fr_t h = a[i] * b[i] - c[i];
  if (z) h = h * *z;
  a[i] = h;
}

// full[x] = lo[x mod 2^B]·hi[x >> B]: the full twiddle table, built once per domain.
__global__ void __launch_bounds__(256)
    expand_kernel(dev_fr_t* full, size_t len, const dev_fr_t* lo, const dev_fr_t* hi, unsigned bits) {
  const size_t x = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (x >= len) return;
  full[x] = lo[x & ((size_t(1) << bits) - 1)] * hi[x >> bits];
}

struct domain_view_t {
  ntt_layout_t t;
  const dev_fr_t* d;
  bool lean;
  tw_tables_t tables(bool inverse) const {
    return tw_tables_t{d + (inverse ? t.small_inv : t.small_fwd),
                       lean ? nullptr : d + (inverse ? t.full_inv : t.full_fwd),
                       d + (inverse ? t.big_lo_inv : t.big_lo_fwd),
                       d + (inverse ? t.big_hi_inv : t.big_hi_fwd),
                       t.log_n,
                       t.small_log,
                       t.big_bits};
  }
  // Powers of g (or g^-1 when `inverse`), with 1/n folded in when `with_n_inv`.
  scale_t coset(bool inverse, bool bitrev, bool with_n_inv) const {
    scale_t s;
    if (with_n_inv)
      s.lo = d + (inverse ? t.coset_inv_lo_n : t.coset_lo_n);
    else
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

// Dynamic shared memory above 48 KiB must be allowed per kernel (and per
// device: cheap enough to ask each time, a host-side attribute write).
cudaError_t set_smem_limit() {
  const int bytes = int(sizeof(dev_fr_t)) << max_tile_log;
  SZK_TRY(cudaFuncSetAttribute(pass_kernel<true, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  SZK_TRY(cudaFuncSetAttribute(pass_kernel<false, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  SZK_TRY(cudaFuncSetAttribute(pass_kernel<true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  return cudaFuncSetAttribute(pass_kernel<false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
}

// All stages (DIF or DIT, forward or inverse roots); `pre` scales on the
// first pass's loads, `post` on the last pass's stores.
cudaError_t run_passes(dev_fr_t* data, const domain_view_t& dom, bool dif, bool inverse, unsigned block,
                       const scale_t& pre, const scale_t& post, cudaStream_t s) {
  SZK_TRY(set_smem_limit());
  const unsigned L = dom.t.log_n;
  const tw_tables_t tw = dom.tables(inverse);
  const size_t n = size_t(1) << L;
  // The bits above the first tile's: as few wide passes as rows of 2^3
  // allow (each pass's k + log_g <= 11), their bits split evenly, in
  // ascending order of b0 (DIT's order; DIF runs them backwards).
  const unsigned tile = std::min(L, max_tile_log), rest = L - tile;
  const unsigned widest = max_tile_log - min_row_log;
  const unsigned wide = (rest + widest - 1) / widest;
  unsigned wide_k[8] = {}, np = 0;
  for (unsigned i = 0; i < wide; ++i) wide_k[i] = rest / wide + (i < rest % wide ? 1 : 0);
  // Passes as (b0, k, log_g), in execution order.
  unsigned plan[8][3];
  auto add = [&](unsigned b0, unsigned k) {
    plan[np][0] = b0, plan[np][1] = k, plan[np][2] = b0 == 0 ? 0 : std::min(row_log, max_tile_log - k), ++np;
  };
  if (dif) {
    unsigned top = L;
    for (unsigned i = wide; i-- > 0; top -= wide_k[i]) add(top - wide_k[i], wide_k[i]);
    add(0, tile);
  } else {
    add(0, tile);
    for (unsigned i = 0, b0 = tile; i < wide; b0 += wide_k[i++]) add(b0, wide_k[i]);
  }
  for (unsigned i = 0; i < np; ++i) {
    pass_args_t a{plan[i][0], plan[i][1], plan[i][2], i == 0 ? pre : scale_t{}, i + 1 == np ? post : scale_t{}};
    const unsigned E = 1u << (a.k + a.log_g);
    const unsigned blocks = unsigned(n >> (a.k + a.log_g));
    const unsigned threads = std::max(1u, std::min(block, E / 4));
    const size_t smem = size_t(E) * sizeof(dev_fr_t);
    if (dom.lean) {
      if (dif)
        pass_kernel<true, true><<<blocks, threads, smem, s>>>(data, tw, a);
      else
        pass_kernel<false, true><<<blocks, threads, smem, s>>>(data, tw, a);
    } else {
      if (dif)
        pass_kernel<true, false><<<blocks, threads, smem, s>>>(data, tw, a);
      else
        pass_kernel<false, false><<<blocks, threads, smem, s>>>(data, tw, a);
    }
    SZK_CHECK_LAUNCH();
  }
  return cudaSuccess;
}

cudaError_t bitrev(dev_fr_t* data, unsigned L, cudaStream_t s) {
  const size_t n = size_t(1) << L;
  bitrev_kernel<<<grid_for(n, 256), 256, 0, s>>>(data, n, L);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

}  // namespace

cudaError_t ntt_expand_twiddles(void* d_domain, const ntt_layout_t& t, cudaStream_t s) {
  if (t.full_len == 0) return cudaSuccess;
  auto* d = static_cast<dev_fr_t*>(d_domain);
  expand_kernel<<<grid_for(t.full_len, 256), 256, 0, s>>>(d + t.full_fwd, t.full_len, d + t.big_lo_fwd,
                                                          d + t.big_hi_fwd, t.big_bits);
  SZK_CHECK_LAUNCH();
  expand_kernel<<<grid_for(t.full_len, 256), 256, 0, s>>>(d + t.full_inv, t.full_len, d + t.big_lo_inv,
                                                          d + t.big_hi_inv, t.big_bits);
  SZK_CHECK_LAUNCH();
  return cudaSuccess;
}

cudaError_t ntt(fr_t* d_data_h, unsigned log_n, ntt_dir_t dir, ntt_order_t order, ntt_coset_t coset,
                const void* d_domain, cudaStream_t s, const ntt_tuning_t& tune) {
  if (log_n < 1 || log_n > ntt_max_log || !d_data_h || !d_domain) return cudaErrorInvalidValue;
  if (tune.block == 0 || tune.block > 256 || (tune.block & (tune.block - 1))) return cudaErrorInvalidValue;
  auto* d = reinterpret_cast<dev_fr_t*>(d_data_h);
  const domain_view_t dom{ntt_layout_t::make(log_n), static_cast<const dev_fr_t*>(d_domain),
                          tune.tables == ntt_tables_t::lean};
  const bool inverse = dir == ntt_dir_t::inverse;
  const bool dif = order != ntt_order_t::reversed_to_natural;
  const bool in_rev = order == ntt_order_t::reversed_to_natural;
  const bool n2n = order == ntt_order_t::natural_to_natural;
  const bool out_rev = order == ntt_order_t::natural_to_reversed;
  scale_t pre, post;
  if (!inverse && coset == ntt_coset_t::coset) pre = dom.coset(false, in_rev, false);
  // The inverse's output scaling happens at the last pass's stores, i.e.
  // before the bit-reversal pass of natural_to_natural: there the element at
  // position q ends up at bitrev(q), so its exponent is bitrev(q).
  if (inverse) post = coset == ntt_coset_t::coset ? dom.coset(true, out_rev != n2n, true) : dom.n_inv();
  SZK_TRY(run_passes(d, dom, dif, inverse, tune.block, pre, post, s));
  if (n2n) SZK_TRY(bitrev(d, log_n, s));
  return cudaSuccess;
}

cudaError_t ntt_h(fr_t* d_a, fr_t* d_b, fr_t* d_c, unsigned log_n, root_convention_t conv, const void* d_domain,
                  cudaStream_t s, const ntt_tuning_t& tune) {
  if (log_n < 1 || log_n > ntt_max_log || !d_a || !d_b || !d_c || !d_domain) return cudaErrorInvalidValue;
  if (tune.block == 0 || tune.block > 256 || (tune.block & (tune.block - 1))) return cudaErrorInvalidValue;
  const domain_view_t dom{ntt_layout_t::make(log_n), static_cast<const dev_fr_t*>(d_domain),
                          tune.tables == ntt_tables_t::lean};
  const size_t n = size_t(1) << log_n;
  dev_fr_t* v[3] = {reinterpret_cast<dev_fr_t*>(d_a), reinterpret_cast<dev_fr_t*>(d_b),
                    reinterpret_cast<dev_fr_t*>(d_c)};
  for (dev_fr_t* x : v) {
    // iNTT natural -> bit-reversed; coefficient k sits at position bitrev(k):
    // scale by (1/n)·g^k there (on the iNTT's last stores); NTT bit-reversed
    // -> natural gives the values on gH.
    SZK_TRY(run_passes(x, dom, true, true, tune.block, scale_t{}, dom.coset(false, true, true), s));
    SZK_TRY(run_passes(x, dom, false, false, tune.block, scale_t{}, scale_t{}, s));
  }
  const bool bellman = conv == root_convention_t::bellman;
  abc_kernel<<<grid_for(n, 256), 256, 0, s>>>(v[0], v[1], v[2], n, bellman ? dom.d + dom.t.scalars + 1 : nullptr);
  SZK_CHECK_LAUNCH();
  if (bellman) {
    // Coset iNTT: natural -> bit-reversed, (1/n)·g^-k at position bitrev(k)
    // on the last stores, then one bit-reversal pass so h comes out in
    // natural order for the MSM.
    SZK_TRY(run_passes(v[0], dom, true, true, tune.block, scale_t{}, dom.coset(true, true, true), s));
    SZK_TRY(bitrev(v[0], log_n, s));
  }
  return cudaSuccess;
}

}  // namespace starzk::gpu
