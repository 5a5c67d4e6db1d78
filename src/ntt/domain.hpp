// domain_t: the evaluation domain of size n = 2^k over F_r that the QAP
// polynomials live on, with everything an NTT over it needs precomputed.
//
//   H = { ω^0, ω^1, ..., ω^(n-1) },  ω a primitive n-th root of unity,
//   Z_H(X) = X^n − 1 = Π_{h ∈ H} (X − h)         (the vanishing polynomial).
//
// The set H is the same for every choice of primitive root, but the ORDER of
// evaluations an NTT produces, out_i = A(ω^i), depends on which ω it is.
// The two key conventions use different ones (ntt/convention.hpp):
// bellman ω_{2^k} = 7^((r−1)/2^k), snarkjs ω_{2^k} = 5^((r−1)/2^k). Row i of
// an R1CS is read as the value at ω^i, so the convention decides which
// polynomial a row vector stands for: use the one the proving key was
// generated with (h_phase_snarkjs needs the snarkjs one).
//
// Precomputed: ω, ω^−1, n^−1, the coset shift g (bellman's GENERATOR 7, a
// generator of F_r^*, so g^n ≠ 1 and the coset gH is disjoint from H), g^−1,
// and the twiddle table ω^i for 0 ≤ i < n/2 (the forward transform needs
// only those; the inverse reuses it, see ntt.hpp). Memory: 16·n bytes
// (2 GiB at n = 2^27). Building it costs n/2 multiplications, in parallel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "ntt/convention.hpp"
#include "util/uninit_vector.hpp"

namespace starzk {

class domain_t {
 public:
  // Largest supported log2 size: r − 1 = 2^32 · t (two-adicity 32), but a
  // CPU table of 2^31 entries is already 64 GiB; keep a sane bound.
  static constexpr unsigned max_log_size = 31;

  // A domain of size 2^log_n. Throws std::invalid_argument if log_n is too
  // large. `threads` (0 = all cores) only parallelises the table build.
  explicit domain_t(unsigned log_n, root_convention_t conv = root_convention_t::snarkjs, unsigned threads = 0);

  // The smallest domain with at least `min_size` points (min_size 0 or 1
  // gives n = 1).
  static domain_t for_size(size_t min_size, root_convention_t conv = root_convention_t::snarkjs, unsigned threads = 0);

  unsigned log_size() const { return log_n_; }
  size_t size() const { return n_; }
  root_convention_t convention() const { return conv_; }

  const fr_t& omega() const { return omega_; }          // ω, primitive n-th root
  const fr_t& omega_inv() const { return omega_inv_; }  // ω^−1
  const fr_t& size_inv() const { return n_inv_; }       // n^−1 mod r
  const fr_t& coset_gen() const { return g_; }          // g = 7
  const fr_t& coset_gen_inv() const { return g_inv_; }  // g^−1

  // ω^i for 0 ≤ i < n/2 (empty for n = 1).
  std::span<const fr_t> twiddles() const { return twiddles_; }

  // Z_H(x) = x^n − 1 (log_n squarings). On the coset: Z_H(g ω^i) = g^n − 1
  // for every i, a constant.
  fr_t vanishing_at(const fr_t& x) const;

 private:
  unsigned log_n_;
  size_t n_;
  root_convention_t conv_;
  fr_t omega_, omega_inv_, n_inv_, g_, g_inv_;
  uninit_vector_t<fr_t> twiddles_;  // written on all cores by the constructor
};

// ceil(log2(n)) for n ≥ 1 (0 for n ≤ 1).
unsigned log2_ceil(size_t n);

}  // namespace starzk
