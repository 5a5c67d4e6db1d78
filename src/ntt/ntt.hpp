// The number-theoretic transform over F_r on a domain_t: the CPU reference
// (and StarPU CPU codelet body) for the NTT phase of the prover.
//
// Definitions, for a = (a_0, ..., a_{n−1}) and ω = d.omega():
//   ntt:        a_i ← Σ_j a_j ω^(ij)                 (coefficients -> values A(ω^i))
//   intt:       a_j ← n^−1 Σ_i a_i ω^(−ij)           (values -> coefficients)
//   coset_ntt:  a_i ← Σ_j a_j s^j ω^(ij) = A(s ω^i)  (values on the coset sH)
//   coset_intt: the inverse of coset_ntt.
// This is ffjavascript's "out_i = Σ a_j ω^(ij)" (docs/oracles.md) and bellman's
// EvaluationDomain::fft. Input and output are in natural order; the
// bit-reversal happens inside.
//
// Algorithm (ntt.cpp): iterative radix-2 Cooley–Tukey, decimation in time
// (Cormen et al., "Introduction to Algorithms", 3rd ed., §30.3): bit-reverse
// the input, then log2(n) stages of n/2 butterflies
//   (u, v) ← (u + w·v, u − w·v)       cost 1M + 2A each,
// for (n/2)·log2(n) multiplications in all. The first stages run inside
// cache-sized blocks, one block per task; the later stages split their
// butterflies evenly across threads. Where the CPU has AVX-512 IFMA
// (ff_path::wide()) and n ≥ 64, the stages run eight butterflies at a time
// in its lanes (ntt_lanes.hpp), with the same results.
//
// Every function takes `threads` (0 = all cores) and throws
// std::invalid_argument if a.size() != d.size().
#pragma once

#include <span>

#include "ff/fr.hpp"
#include "ntt/domain.hpp"

namespace starzk {

void ntt(std::span<fr_t> a, const domain_t& d, unsigned threads = 0);
void intt(std::span<fr_t> a, const domain_t& d, unsigned threads = 0);

// Evaluations on the coset s·H, s = d.coset_gen() unless given.
void coset_ntt(std::span<fr_t> a, const domain_t& d, unsigned threads = 0);
void coset_ntt(std::span<fr_t> a, const domain_t& d, const fr_t& shift, unsigned threads = 0);
void coset_intt(std::span<fr_t> a, const domain_t& d, unsigned threads = 0);
void coset_intt(std::span<fr_t> a, const domain_t& d, const fr_t& shift, unsigned threads = 0);

// a_k ← a_k · s^k for every k (coefficients of A(X) -> of A(sX)).
// Cost n M, plus one exponentiation per thread for its starting power.
void scale_by_powers(std::span<fr_t> a, const fr_t& s, unsigned threads = 0);

// a_k ← a_k · s for every k. Cost n M.
void scale(std::span<fr_t> a, const fr_t& s, unsigned threads = 0);

// a_i <-> a_rev(i), rev reversing the low log2(n) bits; n must be a power of
// two (std::invalid_argument otherwise). Its own inverse.
void bit_reverse_permute(std::span<fr_t> a, unsigned threads = 0);

}  // namespace starzk
