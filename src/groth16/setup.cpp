// Development-key generation; see setup.hpp for the math and the warning.
#include "groth16/setup.hpp"

#include <stdexcept>

#include "ec/jacobian.hpp"
#include "groth16/random.hpp"
#include "groth16/witness_map.hpp"
#include "ntt/domain.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

// Fixed-base scalar multiplication by an 8-bit comb: table[w][d] =
// d·2^(8w)·G for the 32 byte positions w of a 256-bit scalar, so k·G is at
// most 32 mixed additions (7M+4S each) and no doublings. The table costs
// 32·255 points, built once per generator.
template <class P>
class fixed_base_t {
 public:
  explicit fixed_base_t(const affine_t<P>& g) : table_(32 * 256) {
    std::vector<jacobian_t<P>> jac(32 * 256);
    jacobian_t<P> base = jacobian_t<P>::from_affine(g);
    for (int w = 0; w < 32; ++w) {
      jac[w * 256] = jacobian_t<P>::infinity();
      for (int d = 1; d < 256; ++d) jac[w * 256 + d] = jac[w * 256 + d - 1].add(base);
      for (int b = 0; b < 8; ++b) base = base.dbl();
    }
    jacobian_t<P>::batch_to_affine(jac, table_);
  }

  jacobian_t<P> mul(const fr_t& k) const {
    const auto c = k.to_canonical();
    jacobian_t<P> acc = jacobian_t<P>::infinity();
    for (int w = 0; w < 32; ++w) {
      unsigned d = unsigned(c[w / 8] >> (8 * (w % 8))) & 0xff;
      if (d) acc = acc.add_mixed(table_[w * 256 + d]);
    }
    return acc;
  }

  // out[i] = k[i]·G, in parallel, converted to affine with one inversion per chunk.
  std::vector<affine_t<P>> mul_all(std::span<const fr_t> k, unsigned threads) const {
    std::vector<affine_t<P>> out(k.size());
    parallel_for(k.size(), threads, [&](uint64_t begin, uint64_t end) {
      std::vector<jacobian_t<P>> jac(end - begin);
      for (uint64_t i = begin; i < end; ++i) jac[i - begin] = mul(k[i]);
      jacobian_t<P>::batch_to_affine(jac, std::span<affine_t<P>>(out).subspan(begin, end - begin));
    });
    return out;
  }

 private:
  std::vector<affine_t<P>> table_;
};

// L_i(τ) = ω^i·Z(τ) / (n·(τ − ω^i)) for i < n.
std::vector<fr_t> lagrange_at(const fr_t& tau, const fr_t& omega, uint64_t n) {
  const fr_t z = tau.pow(n) - fr_t::one();
  std::vector<fr_t> pow_w(n), den(n);
  fr_t wi = fr_t::one();
  const fr_t n_fr = fr_t::from_u64(n);
  for (uint64_t i = 0; i < n; ++i) {
    pow_w[i] = wi;
    den[i] = n_fr * (tau - wi);
    wi = wi * omega;
  }
  fr_t::batch_inverse(den);
  for (uint64_t i = 0; i < n; ++i) den[i] = pow_w[i] * z * den[i];
  return den;
}

// acc[col] += val·lag[row] over the matrix's terms.
void accumulate(const sparse_matrix_t& m, const std::vector<fr_t>& lag, std::vector<fr_t>& acc) {
  for (uint64_t i = 0; i < m.n_rows; ++i)
    for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) acc[m.col[k]] += m.val[k] * lag[i];
}

// The .zkey form of A and B: the circuit's rows, then A[n_c + s][s] = 1.
sparse_matrix_t with_input_rows(const sparse_matrix_t& m, uint64_t n, uint32_t n_public, bool add_inputs) {
  sparse_matrix_t out = m;
  out.n_rows = n;
  out.row_ptr.resize(n + 1, out.row_ptr[m.n_rows]);
  if (add_inputs) {
    for (uint64_t s = 0; s <= n_public; ++s) {
      out.col.push_back(uint32_t(s));
      out.val.push_back(fr_t::one());
      for (uint64_t r = m.n_rows + s + 1; r <= n; ++r) ++out.row_ptr[r];
    }
  }
  return out;
}

unsigned log2_exact(uint64_t n) {
  unsigned k = 0;
  while ((uint64_t(1) << k) < n) ++k;
  return k;
}

}  // namespace

fr_t domain_root(h_convention_t convention, unsigned log2n) {
  return domain_t::root(log2n, convention == h_convention_t::snarkjs_odd_coset ? root_convention::snarkjs
                                                                               : root_convention::bellman);
}

toxic_waste_t random_toxic_waste() {
  auto nonzero = [] {
    fr_t v;
    do v = random_fr();
    while (v.is_zero());
    return v;
  };
  return toxic_waste_t{nonzero(), nonzero(), nonzero(), nonzero(), nonzero()};
}

proving_key_t setup(const r1cs_t& cs, h_convention_t convention, unsigned threads) {
  return setup(cs, convention, random_toxic_waste(), threads);
}

proving_key_t setup(const r1cs_t& cs, h_convention_t convention, const toxic_waste_t& tw, unsigned threads) {
  if (cs.n_vars < cs.n_public + 1) throw std::invalid_argument("setup: circuit has fewer wires than public inputs");
  const uint64_t n = domain_size_for(cs);
  const unsigned log2n = log2_exact(n);
  if (log2n + 1 > 32) throw std::invalid_argument("setup: circuit too large for the BLS12-381 domain");
  const fr_t omega = domain_root(convention, log2n);
  if ((tw.tau.pow(n) - fr_t::one()).is_zero()) throw std::invalid_argument("setup: τ lies in the domain");

  // u, v, w: the QAP polynomials at τ, input rows included.
  const std::vector<fr_t> lag = lagrange_at(tw.tau, omega, n);
  std::vector<fr_t> u(cs.n_vars, fr_t::zero()), v(cs.n_vars, fr_t::zero()), w(cs.n_vars, fr_t::zero());
  accumulate(cs.a, lag, u);
  accumulate(cs.b, lag, v);
  accumulate(cs.c, lag, w);
  for (uint64_t s = 0; s <= cs.n_public; ++s) u[s] += lag[cs.n_constraints + s];

  const fr_t gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
  const uint64_t n_in = uint64_t(cs.n_public) + 1;
  std::vector<fr_t> ic_s(n_in), l_s(cs.n_vars - n_in);
  for (uint64_t j = 0; j < cs.n_vars; ++j) {
    const fr_t t = tw.beta * u[j] + tw.alpha * v[j] + w[j];
    if (j < n_in) ic_s[j] = t * gamma_inv;
    else l_s[j - n_in] = t * delta_inv;
  }

  // H query scalars.
  std::vector<fr_t> h_s;
  const fr_t z = tw.tau.pow(n) - fr_t::one();
  if (convention == h_convention_t::bellman_coset) {
    h_s.resize(n - 1);  // τ^i·Z(τ)/δ
    fr_t t = z * delta_inv;
    for (uint64_t i = 0; i + 1 < n; ++i, t = t * tw.tau) h_s[i] = t;
  } else {
    // L'_{2i+1}(τ)/δ over the 2n-th roots (odd indices only).
    if ((tw.tau.pow(2 * n) - fr_t::one()).is_zero()) throw std::invalid_argument("setup: τ lies in the 2n-domain");
    const std::vector<fr_t> lag2 = lagrange_at(tw.tau, domain_root(convention, log2n + 1), 2 * n);
    h_s.resize(n);
    for (uint64_t i = 0; i < n; ++i) h_s[i] = lag2[2 * i + 1] * delta_inv;
  }

  const fixed_base_t<g1_params> g1(g1_affine_t::generator());
  const fixed_base_t<g2_params> g2(g2_affine_t::generator());
  proving_key_t pk;
  pk.convention = convention;
  pk.n_vars = cs.n_vars;
  pk.n_public = cs.n_public;
  pk.domain_size = n;
  pk.alpha_g1 = g1.mul(tw.alpha).to_affine();
  pk.beta_g1 = g1.mul(tw.beta).to_affine();
  pk.delta_g1 = g1.mul(tw.delta).to_affine();
  pk.beta_g2 = g2.mul(tw.beta).to_affine();
  pk.delta_g2 = g2.mul(tw.delta).to_affine();
  pk.a = g1.mul_all(u, threads);
  pk.b_g1 = g1.mul_all(v, threads);
  pk.b_g2 = g2.mul_all(v, threads);
  pk.l = g1.mul_all(l_s, threads);
  pk.h = g1.mul_all(h_s, threads);
  pk.vk.alpha_g1 = pk.alpha_g1;
  pk.vk.beta_g2 = pk.beta_g2;
  pk.vk.gamma_g2 = g2.mul(tw.gamma).to_affine();
  pk.vk.delta_g2 = pk.delta_g2;
  pk.vk.ic = g1.mul_all(ic_s, threads);
  if (convention == h_convention_t::snarkjs_odd_coset) {
    pk.zkey_a = with_input_rows(cs.a, n, cs.n_public, true);
    pk.zkey_b = with_input_rows(cs.b, n, cs.n_public, false);
  }
  return pk;
}

}  // namespace starzk
