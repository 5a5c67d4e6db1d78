// Development-key generation; see setup.hpp for the math and the warning.
#include "groth16/setup.hpp"

#include <chrono>
#include <stdexcept>

#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/random.hpp"
#include "groth16/setup_detail.hpp"
#include "groth16/setup_gpu.hpp"
#include "groth16/witness_map.hpp"
#include "ntt/convention.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

// L_i(τ) = ω^i·Z(τ) / (n·(τ − ω^i)) for i < n. Chunks of i run in parallel,
// each from ω^begin (one pow) with its own batch inversion (3M per element
// + one inversion per chunk).
std::vector<fr_t> lagrange_at(const fr_t& tau, const fr_t& omega, uint64_t n, unsigned threads) {
  const fr_t z = tau.pow(n) - fr_t::one();
  std::vector<fr_t> pow_w(n), den(n);
  const fr_t n_fr = fr_t::from_u64(n);
  parallel_for(
      n, threads,
      [&](uint64_t begin, uint64_t end) {
        fr_t wi = omega.pow(begin);
        for (uint64_t i = begin; i < end; ++i) {
          pow_w[i] = wi;
          den[i] = n_fr * (tau - wi);
          wi = wi * omega;
        }
        fr_t::batch_inverse(std::span<fr_t>(den).subspan(begin, end - begin));
        for (uint64_t i = begin; i < end; ++i) den[i] = pow_w[i] * z * den[i];
      },
      4096);
  return den;
}

// acc[col] += value·lag[row] over the matrix's terms (the value source
// chosen once, r1cs.hpp with_values).
// A column scatter, in parallel without locks: each of the t parts owns a
// range of columns and walks every term, adding only its own (for the
// others a compare), so no two threads ever add into one entry. A part reads
// all the row pointers and columns (12 bytes per term), but the products,
// the expensive part, are shared out.
void accumulate(const sparse_matrix_t& m, const std::vector<fr_t>& lag, std::vector<fr_t>& acc, unsigned threads) {
  const uint64_t t = resolve_threads(threads);
  with_values(m, [&](const auto& val) {
    parallel_tasks(t, threads, [&](size_t part) {
      const uint64_t lo = m.n_cols * part / t, hi = m.n_cols * (part + 1) / t;
      for (uint64_t i = 0; i < m.n_rows; ++i)
        for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
          const uint64_t c = m.col[k];
          if (c >= lo && c < hi) acc[c] += val[k] * lag[i];
        }
    });
  });
}

// The .zkey form of A and B: the circuit's rows, then A[n_c + s][s] = 1. A
// coded matrix stays coded (1 joins its dictionary) unless the dictionary is
// full without a 1, when it is expanded.
sparse_matrix_t with_input_rows(const sparse_matrix_t& m, uint64_t n, uint32_t n_public, bool add_inputs) {
  sparse_matrix_t out = m;
  out.n_rows = n;
  out.row_ptr.resize(n + 1, out.row_ptr[m.n_rows]);
  if (add_inputs) {
    std::optional<uint16_t> one_code;
    if (out.coded() && !(one_code = dict_code(out, fr_t::one()))) expand_matrix(out);
    for (uint64_t s = 0; s <= n_public; ++s) {
      out.col.push_back(uint32_t(s));
      if (out.coded())
        out.code.push_back(*one_code);
      else
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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

namespace setup_detail {

bool want_gpu(setup_device_t d) {
  if (d == setup_device_t::cpu) return false;
  std::string why;
  const bool present = setup_detail::gpu_present(&why);
  if (d == setup_device_t::gpu && !present)
    throw std::runtime_error("setup: a GPU was asked for (--gpu on) but " + why +
                             "; use --gpu auto or --gpu off to run on the CPU");
  return present;
}

key_head_t head_points(const toxic_waste_t& tw) {
  // 4-bit windows (ec/scalar_mul.hpp); affine points are unique, so any
  // method gives the same bytes.
  const g1_affine_t g1 = g1_affine_t::generator();
  const g2_affine_t g2 = g2_affine_t::generator();
  return {mul(g1, tw.alpha).to_affine(), mul(g1, tw.beta).to_affine(),  mul(g1, tw.delta).to_affine(),
          mul(g2, tw.beta).to_affine(),  mul(g2, tw.delta).to_affine(), mul(g2, tw.gamma).to_affine()};
}

}  // namespace setup_detail

bool setup_gpu_available(std::string* why) { return setup_detail::gpu_present(why); }

setup_device_t parse_setup_device(std::string_view s) {
  if (s == "auto") return setup_device_t::auto_;
  if (s == "on" || s == "gpu") return setup_device_t::gpu;
  if (s == "off" || s == "cpu") return setup_device_t::cpu;
  throw std::invalid_argument("--gpu: '" + std::string(s) + "' is not one of auto, on, off");
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

proving_key_t setup(const r1cs_t& cs, root_convention_t convention, unsigned threads) {
  return setup(cs, convention, random_toxic_waste(), threads);
}

proving_key_t setup(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw, unsigned threads) {
  setup_options_t o;
  o.device = setup_device_t::cpu;
  o.threads = threads;
  return setup(cs, convention, tw, o);
}

proving_key_t setup(const r1cs_t& cs, root_convention_t convention, const setup_options_t& options) {
  return setup(cs, convention, random_toxic_waste(), options);
}

namespace setup_detail {

scalars_t compute_scalars(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw, unsigned threads) {
  if (cs.n_vars < cs.n_public + 1) throw std::invalid_argument("setup: circuit has fewer wires than public inputs");
  const uint64_t n = domain_size_for(cs);
  const unsigned log2n = log2_exact(n);
  if (log2n + 1 > 32) throw std::invalid_argument("setup: circuit too large for the BLS12-381 domain");
  const fr_t omega = root_of_unity(log2n, convention);
  if ((tw.tau.pow(n) - fr_t::one()).is_zero()) throw std::invalid_argument("setup: τ lies in the domain");
  scalars_t out;
  out.n = n;
  std::vector<fr_t>& u = out.u;
  std::vector<fr_t>& v = out.v;
  std::vector<fr_t>& ic_s = out.ic;
  std::vector<fr_t>& l_s = out.l;
  std::vector<fr_t>& h_s = out.h;
  // u, v, w: the QAP polynomials at τ, input rows included.
  const std::vector<fr_t> lag = lagrange_at(tw.tau, omega, n, threads);
  u.assign(cs.n_vars, fr_t::zero());
  v.assign(cs.n_vars, fr_t::zero());
  std::vector<fr_t> w(cs.n_vars, fr_t::zero());
  accumulate(cs.a, lag, u, threads);
  accumulate(cs.b, lag, v, threads);
  accumulate(cs.c, lag, w, threads);
  for (uint64_t s = 0; s <= cs.n_public; ++s) u[s] += lag[cs.n_constraints + s];

  const fr_t gamma_inv = tw.gamma.inverse(), delta_inv = tw.delta.inverse();
  const uint64_t n_in = uint64_t(cs.n_public) + 1;
  ic_s.resize(n_in);
  l_s.resize(cs.n_vars - n_in);
  parallel_for(
      cs.n_vars, threads,
      [&](uint64_t begin, uint64_t end) {
        for (uint64_t j = begin; j < end; ++j) {
          const fr_t t = tw.beta * u[j] + tw.alpha * v[j] + w[j];
          if (j < n_in)
            ic_s[j] = t * gamma_inv;
          else
            l_s[j - n_in] = t * delta_inv;
        }
      },
      4096);

  // H query scalars.
  const fr_t z = tw.tau.pow(n) - fr_t::one();
  if (convention == root_convention_t::bellman) {
    h_s.resize(n - 1);  // τ^i·Z(τ)/δ, chunks from τ^begin
    const fr_t zd = z * delta_inv;
    parallel_for(
        n - 1, threads,
        [&](uint64_t begin, uint64_t end) {
          fr_t t = zd * tw.tau.pow(begin);
          for (uint64_t i = begin; i < end; ++i, t = t * tw.tau) h_s[i] = t;
        },
        4096);
  } else {
    // L'_{2i+1}(τ)/δ over the 2n-th roots (odd indices only).
    if ((tw.tau.pow(2 * n) - fr_t::one()).is_zero()) throw std::invalid_argument("setup: τ lies in the 2n-domain");
    const std::vector<fr_t> lag2 = lagrange_at(tw.tau, root_of_unity(log2n + 1, convention), 2 * n, threads);
    h_s.resize(n);
    parallel_for(
        n, threads,
        [&](uint64_t begin, uint64_t end) {
          for (uint64_t i = begin; i < end; ++i) h_s[i] = lag2[2 * i + 1] * delta_inv;
        },
        4096);
  }

  return out;
}

}  // namespace setup_detail

proving_key_t setup(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw,
                    const setup_options_t& options) {
  const auto t_start = std::chrono::steady_clock::now();
  const unsigned threads = options.threads;
  const bool use_gpu = setup_detail::want_gpu(options.device);  // before any heavy work: --gpu on fails fast
  const setup_detail::scalars_t sc = setup_detail::compute_scalars(cs, convention, tw, threads);
  if (options.info) options.info->scalars_s = seconds_since(t_start);
  const uint64_t n = sc.n;
  const std::vector<fr_t>&u = sc.u, &v = sc.v, &l_s = sc.l, &h_s = sc.h, &ic_s = sc.ic;
  proving_key_t pk;
  pk.convention = convention;
  pk.n_vars = cs.n_vars;
  pk.n_public = cs.n_public;
  pk.domain_size = n;
  const auto t_fixed = std::chrono::steady_clock::now();
  std::string device;
  if (use_gpu) {
    device = setup_detail::fixed_base_queries_gpu(pk, {u, v, l_s, h_s, ic_s}, options.gpu_chunk, threads);
  } else {
    device = "CPU (" + std::to_string(resolve_threads(threads)) + " threads)";
    const fixed_base_t<g1_params> g1(g1_affine_t::generator());
    const fixed_base_t<g2_params> g2(g2_affine_t::generator());
    auto put = [](auto& query, const auto& points) { query.assign(points.begin(), points.end()); };
    put(pk.a, g1.mul_all(u, threads));
    put(pk.b_g1, g1.mul_all(v, threads));
    put(pk.b_g2, g2.mul_all(v, threads));
    put(pk.l, g1.mul_all(l_s, threads));
    put(pk.h, g1.mul_all(h_s, threads));
    pk.vk.ic = g1.mul_all(ic_s, threads);
  }
  setup_detail::head_points(tw).apply_to(pk);
  if (options.info) {
    options.info->used_gpu = use_gpu;
    options.info->device = device;
    options.info->fixed_base_s = seconds_since(t_fixed);
  }
  if (convention == root_convention_t::snarkjs) zkey_matrices(cs, n, pk.zkey_a, pk.zkey_b);
  if (options.info) options.info->total_s = seconds_since(t_start);
  return pk;
}

void zkey_matrices(const r1cs_t& cs, uint64_t n, sparse_matrix_t& a, sparse_matrix_t& b) {
  a = with_input_rows(cs.a, n, cs.n_public, true);
  b = with_input_rows(cs.b, n, cs.n_public, false);
}

}  // namespace starzk
