// prep_msm: the split of one MSM query by scalar value (docs/prover.md step 3),
// and split_msm, the MSM evaluated through that split.
//
// A Filecoin witness is mostly bits, so for a query Σ_i s_i P_i:
//   s_i = 0      contributes nothing: dropped;
//   s_i = 1      contributes P_i: a bit in the `ones` bitmap (batch_add);
//   other s_i    go to the tail: (i, s_i) gathered for a Pippenger MSM.
// Entries i < forced_tail (the constant 1 and the public inputs when the
// query spans the whole witness, as A and B do) always go to the tail, zeros
// and ones included, so the bitmap covers only the aux part and the tail's
// head has a fixed layout. For the L query (aux only) pass forced_tail = 0.
//
//   split_msm(bases, prep) = batch_add(bases, ones) + Σ_j tail_scalars[j]·bases[tail_index[j]]
//                          = Σ_i s_i P_i.
//
// Classification compares Montgomery limbs with those of 0 and 1 (no
// conversion). It runs in parallel over ranges of 64-entry bitmap words:
// each thread writes its own words and gathers its tail locally, and the
// local tails are then concatenated in order, so tail_index is increasing.
// Memory: n/8 bytes of bitmap plus 36 bytes per tail entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ec/jacobian.hpp"
#include "ff/fr.hpp"
#include "msm/pippenger.hpp"

namespace starzk {

struct prep_msm_t {
  size_t n = 0;                      // scalars classified (= the query's base count)
  size_t forced_tail = 0;            // leading entries sent to the tail unconditionally
  std::vector<uint64_t> ones;        // bitmap_words(n) words; bit i: s_i = 1 and i ≥ forced_tail
  std::vector<uint32_t> tail_index;  // increasing indices of the tail entries
  std::vector<fr_t> tail_scalars;    // their scalars (Montgomery form)
  size_t n_zero = 0;                 // zeros dropped (outside the forced range)
  size_t n_one = 0;                  // bits set in `ones`
};

// Classifies scalars. Throws std::invalid_argument if forced_tail > n or
// n ≥ 2^32 (indices are 32-bit, as in the device tail format).
prep_msm_t prep_msm(std::span<const fr_t> scalars, size_t forced_tail = 0, unsigned threads = 0);

// Σ_i s_i·bases[i] through the split: batch_add of the ones plus a
// Pippenger MSM of the tail. Throws std::invalid_argument if
// bases.size() != prep.n.
template <class P>
jacobian_t<P> split_msm(std::span<const affine_t<P>> bases, const prep_msm_t& prep, unsigned threads = 0);
// The same with the tail's MSM as cfg asks (cfg.threads also runs batch_add).
template <class P>
jacobian_t<P> split_msm(std::span<const affine_t<P>> bases, const prep_msm_t& prep, const msm_config_t& cfg);

}  // namespace starzk
