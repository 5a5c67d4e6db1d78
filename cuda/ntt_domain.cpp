// Host side of the NTT domains: computes the twiddle and coset tables of
// ntt_domain.hpp with the host fr_t and copies them to caller memory.
//
// Roots and coset shift: those of the domain's root_convention_t
// (ntt/convention.hpp: root_of_unity, h_coset_shift); snarkjs w_n =
// 5^((r-1)/n), coset shift w_{2n} (the odd coset of the snarkjs H phase);
// bellman w_n = 7^((r-1)/n), coset shift g = 7. The host tables are
// O(sqrt n), so this costs well under a millisecond even at n = 2^27; the full
// twiddle tables (n/2 entries per direction) are expanded on the device from
// them by ntt_domain_init. ntt_domain_build_host fills the full tables on
// the host as well (n/2 products per direction on all cores: ~0.1 s at
// 2^24), for a caller that keeps the whole domain in host memory and lets a
// runtime copy it to each device (the StarPU key bundle).
#include <algorithm>
#include <thread>
#include <vector>

#include "cuda/ntt_domain.hpp"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu {
namespace {

// out[i] = base^(i·step_pow), i < len, where step = base^step_pow given directly.
void fill_powers(fr_t* out, size_t len, const fr_t& step) {
  fr_t acc = fr_t::one();
  for (size_t i = 0; i < len; ++i) {
    out[i] = acc;
    acc *= step;
  }
}

fr_t pow2k(fr_t x, unsigned k) {
  for (unsigned i = 0; i < k; ++i) x = x.sqr();
  return x;
}

}  // namespace

size_t ntt_domain_bytes(unsigned log_n, ntt_tables_t tables) {
  if (log_n < 1 || log_n > ntt_max_log) return 0;
  const ntt_layout_t t = ntt_layout_t::make(log_n);
  return (tables == ntt_tables_t::lean ? t.full_fwd : t.total) * sizeof(fr_t);
}

namespace {

// Everything before full_fwd (the O(sqrt n) tables and scalars) into h.
void fill_small_tables(fr_t* h, const ntt_layout_t& t, unsigned log_n, root_convention_t conv) {
  std::fill(h, h + t.full_fwd, fr_t::zero());
  const fr_t w = root_of_unity(log_n, conv);
  const fr_t w_inv = w.inverse();
  const fr_t g = h_coset_shift(log_n, conv);
  const fr_t g_inv = g.inverse();

  // small[h + j] = w_{2h}^j with w_{2h} = w_n^(n/2h).
  for (unsigned b = 0; b <= t.small_log; ++b) {
    const size_t half = size_t(1) << b;
    fill_powers(&h[t.small_fwd + half], half, pow2k(w, log_n - 1 - b));
    fill_powers(&h[t.small_inv + half], half, pow2k(w_inv, log_n - 1 - b));
  }
  fill_powers(&h[t.big_lo_fwd], t.big_lo_len, w);
  fill_powers(&h[t.big_hi_fwd], t.big_hi_len, pow2k(w, t.big_bits));
  fill_powers(&h[t.big_lo_inv], t.big_lo_len, w_inv);
  fill_powers(&h[t.big_hi_inv], t.big_hi_len, pow2k(w_inv, t.big_bits));
  fill_powers(&h[t.coset_lo], t.coset_lo_len, g);
  fill_powers(&h[t.coset_hi], t.coset_hi_len, pow2k(g, t.coset_bits));
  fill_powers(&h[t.coset_inv_lo], t.coset_lo_len, g_inv);
  fill_powers(&h[t.coset_inv_hi], t.coset_hi_len, pow2k(g_inv, t.coset_bits));

  const fr_t n_inv = fr_t::from_u64(uint64_t(1) << log_n).inverse();
  for (size_t i = 0; i < t.coset_lo_len; ++i) {
    h[t.coset_lo_n + i] = h[t.coset_lo + i] * n_inv;
    h[t.coset_inv_lo_n + i] = h[t.coset_inv_lo + i] * n_inv;
  }
  const fr_t g_n = pow2k(g, log_n);
  h[t.scalars + 0] = n_inv;
  h[t.scalars + 1] = (g_n - fr_t::one()).inverse();  // snarkjs: g^n = -1, harmless
  h[t.scalars + 2] = g_n;
}

// out[x] = w^x for x < len, on all cores (each chunk starts at w^begin).
void fill_powers_parallel(fr_t* out, size_t len, const fr_t& w) {
  const size_t chunk = size_t(1) << 16;
  const size_t chunks = (len + chunk - 1) / chunk;
  const unsigned threads = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), unsigned(chunks)));
  std::vector<std::thread> pool;
  for (unsigned id = 0; id < threads; ++id)
    pool.emplace_back([&, id] {
      for (size_t c = id; c < chunks; c += threads) {
        const size_t begin = c * chunk, end = std::min(len, begin + chunk);
        fr_t acc = w.pow(uint64_t(begin));
        for (size_t x = begin; x < end; ++x, acc *= w) out[x] = acc;
      }
    });
  for (std::thread& th : pool) th.join();
}

}  // namespace

cudaError_t ntt_domain_build_host(void* h_domain, unsigned log_n, root_convention_t conv, ntt_tables_t tables) {
  if (log_n < 1 || log_n > ntt_max_log || !h_domain) return cudaErrorInvalidValue;
  const ntt_layout_t t = ntt_layout_t::make(log_n);
  fr_t* h = static_cast<fr_t*>(h_domain);
  fill_small_tables(h, t, log_n, conv);
  if (t.full_len > 0 && tables == ntt_tables_t::full) {
    const fr_t w = root_of_unity(log_n, conv);
    fill_powers_parallel(h + t.full_fwd, t.full_len, w);
    fill_powers_parallel(h + t.full_inv, t.full_len, w.inverse());
  }
  return cudaSuccess;
}

cudaError_t ntt_domain_init(void* d_domain, unsigned log_n, root_convention_t conv, cudaStream_t stream,
                            ntt_tables_t tables) {
  if (log_n < 1 || log_n > ntt_max_log || !d_domain) return cudaErrorInvalidValue;
  const ntt_layout_t t = ntt_layout_t::make(log_n);
  const size_t host_len = t.full_fwd;  // everything but the device-built full tables
  std::vector<fr_t> h(host_len);
  fill_small_tables(h.data(), t, log_n, conv);
  // Pageable source: the call returns once the data are staged, so h may go.
  const cudaError_t e = cudaMemcpyAsync(d_domain, h.data(), host_len * sizeof(fr_t), cudaMemcpyHostToDevice, stream);
  if (e != cudaSuccess) return e;
  return tables == ntt_tables_t::full ? ntt_expand_twiddles(d_domain, t, stream) : cudaSuccess;
}

}  // namespace starzk::gpu
