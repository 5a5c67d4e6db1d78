// The two H-phase conventions (bellman coset division, snarkjs odd 2n-th
// roots); the math, step by step, is in h_phase.hpp.
#include "ntt/h_phase.hpp"

#include <bit>
#include <span>
#include <stdexcept>
#include <string>

#include "ntt/ntt.hpp"
#include "util/parallel.hpp"

namespace starzk {
namespace {

unsigned checked_log_size(std::span<const fr_t> a, std::span<const fr_t> b, std::span<const fr_t> c, const char* who) {
  if (a.size() != b.size() || a.size() != c.size())
    throw std::invalid_argument(std::string(who) + ": a, b, c have lengths " + std::to_string(a.size()) + ", " +
                                std::to_string(b.size()) + ", " + std::to_string(c.size()) + " (must be equal)");
  if (a.empty() || !std::has_single_bit(a.size()))
    throw std::invalid_argument(std::string(who) + ": length " + std::to_string(a.size()) +
                                " is not a nonzero power of two (pad the rows to the domain size)");
  return unsigned(std::countr_zero(a.size()));
}

// a_i ← (a_i · b_i − c_i) · factor     (2M + 1A per entry; 1M when factor = 1)
void combine(std::span<fr_t> a, std::span<const fr_t> b, std::span<const fr_t> c, const fr_t& factor,
             unsigned threads) {
  const bool unit = factor.is_one();
  parallel_for(
      a.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          const fr_t p = a[i] * b[i] - c[i];
          a[i] = unit ? p : p * factor;
        }
      },
      1024);
}

// The rows' transforms into coset values (steps 1 and 2), the rows side by
// side: on T threads up to T rows at once, each on T / rows threads, then
// what is left on all T. One transform of a row gains less from a second
// thread than a second row does (each of its stages forks and joins, and a
// stage's workers walk memory the other just wrote; docs/benchmarks.md,
// "The H phase's rows side by side"); rows on threads of their own share
// nothing. On two threads: a and b at once, then c on both; on one, each
// row in turn.
template <class Transform>
void rows_side_by_side(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, unsigned threads,
                       Transform&& to_coset) {
  const std::span<fr_t> rows[3] = {a, b, c};
  const unsigned t = resolve_threads(threads);
  const unsigned first = std::min(t, 3u);  // rows of the first round
  parallel_tasks(first, first, [&](size_t i) { to_coset(rows[i], t / first); });
  for (unsigned i = first; i < 3; ++i) to_coset(rows[i], t);
}

}  // namespace

void h_phase_bellman(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, const domain_t& d, unsigned threads) {
  const unsigned log_n = checked_log_size(a, b, c, "h_phase_bellman");
  if (d.log_size() != log_n)
    throw std::invalid_argument("h_phase_bellman: domain of size " + std::to_string(d.size()) + " for rows of length " +
                                std::to_string(a.size()));
  const fr_t g = fr_t::multiplicative_generator();
  rows_side_by_side(a, b, c, threads, [&](std::span<fr_t> v, unsigned t) {
    intt(v, d, t);          // 1. coefficients
    coset_ntt(v, d, g, t);  // 2. values on gH
  });
  // 3. divide by Z(g ω^i) = g^n − 1.
  const fr_t z_inv = d.vanishing_at(g).inverse();
  combine(a, b, c, z_inv, threads);
  // 4. back to the coefficients of h.
  coset_intt(a, d, g, threads);
}

void h_phase_bellman(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, unsigned threads) {
  const unsigned log_n = checked_log_size(a, b, c, "h_phase_bellman");
  const domain_t d(log_n, root_convention_t::bellman, threads);
  h_phase_bellman(a, b, c, d, threads);
}

void h_phase_snarkjs(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, const domain_t& d, unsigned threads) {
  const unsigned log_n = checked_log_size(a, b, c, "h_phase_snarkjs");
  if (d.log_size() != log_n)
    throw std::invalid_argument("h_phase_snarkjs: domain of size " + std::to_string(d.size()) + " for rows of length " +
                                std::to_string(a.size()));
  if (d.convention() != root_convention_t::snarkjs)
    throw std::invalid_argument("h_phase_snarkjs: the domain must use the snarkjs roots (5^((r-1)/n))");
  // ω_{2n}: the snarkjs root of order 2n (the convention's coset shift); its
  // square is d.omega().
  const fr_t w2n = h_coset_shift(log_n, root_convention_t::snarkjs);
  rows_side_by_side(a, b, c, threads, [&](std::span<fr_t> v, unsigned t) {
    intt(v, d, t);            // 1. coefficients
    coset_ntt(v, d, w2n, t);  // 2. values at ω_{2n}^(2i+1)
  });
  combine(a, b, c, fr_t::one(), threads);  // 3. h_i = a_i b_i − c_i
}

void h_phase_snarkjs(std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, unsigned threads) {
  const unsigned log_n = checked_log_size(a, b, c, "h_phase_snarkjs");
  const domain_t d(log_n, root_convention_t::snarkjs, threads);
  h_phase_snarkjs(a, b, c, d, threads);
}

}  // namespace starzk
