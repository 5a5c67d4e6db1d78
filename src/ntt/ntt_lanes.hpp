// The NTT's stages with their butterflies eight at a time in AVX-512 IFMA
// lanes (ff/fr_x8_ifma.hpp): the forward transform of ntt.cpp, the same
// arithmetic and the same results, where the CPU has the lanes.
//
// Why: the mulx product is the largest part of a scalar butterfly, and
// the lanes do eight products in about a hundred multiply-adds
// (docs/benchmarks.md, "The CPU prover in lanes").
//
// Method, in place on the fr_t array already in bit-reversed order (ntt.cpp
// permutes first), radix-2 decimation in time as in ntt.cpp:
//   stages 1-3 (half 1, 2, 4) inside each run of eight elements: one load,
//     the three stages in registers (a lane's partner by a permutation,
//     both lanes of a pair computing, the lower one keeping u + w·v and
//     the upper u − w·v), one store;
//   stages 4.. (half ≥ 8): runs of eight lower and eight upper elements,
//     eight twiddles ω_len^j .. ω_len^(j+7) brought to the twiddle form by
//     one lane product, computed once per j and used by every group of the
//     stage that needs them.
// A load turns eight fr_t (four 64-byte rows) into five 52-bit limb
// registers through permutations; values between stages stay below 2r
// (fr_x8_ifma.hpp) and only the last stage writes canonical fr_t. Stages
// whose groups fit 4096 elements run one chunk per task, as in ntt.cpp;
// the others spread their runs over the threads. The scalings around the
// transforms (n^−1 after an inverse, the coset's powers s^i) run in the
// lanes too (scale_lanes).
#pragma once

#include <span>

#include "ff/fr.hpp"

namespace starzk {

// Whether forward_lanes may run here (ff_path::wide()).
bool ntt_lanes_available();

// The smallest transform the lanes take (n = 2^ntt_lanes_min_log).
constexpr unsigned ntt_lanes_min_log = 6;

// The stages of the forward transform on a (bit-reversed input, natural
// output); tw = ω^i for i < n/2 (domain_t::twiddles()). Needs
// ntt_lanes_available() and a.size() = 2^k with k ≥ ntt_lanes_min_log.
void forward_lanes(std::span<fr_t> a, std::span<const fr_t> tw, unsigned threads);

// a_i <- a_i·s (powers = false) or a_i·s^i (powers = true), eight at a time
// (a product per run of eight, one more to step the powers). Needs
// ntt_lanes_available() and a.size() a multiple of 8.
void scale_lanes(std::span<fr_t> a, const fr_t& s, bool powers, unsigned threads);

}  // namespace starzk
