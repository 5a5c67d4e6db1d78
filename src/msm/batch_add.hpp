// batch_add: the sum of the bases selected by a bitmap, Σ_{i : bit i} P_i.
//
// In a Filecoin witness most aux scalars are 0 or 1 (SHA-256 bits): the
// "scalar is 1" part of each MSM is a plain sum of points, no scalar
// arithmetic at all (docs/prover.md step 3; cuzk spends 0.65 s per partition on
// it on the GPU). This is the CPU version.
//
// Bitmap layout (shared with prep_msm and the CUDA kernel): bit i is bit
// (i mod 64) of word i / 64, words little-endian, ceil(n / 64) words for n
// bases; bits past n must be clear.
//
// Method: the bitmap is cut into a few chunks of words per thread; a chunk
// walks its set bits (count-trailing-zeros) and sums its bases, with mixed
// XYZZ additions when it has few, else in affine buckets whose additions
// share inversions (in IFMA lanes on G1 where the CPU has them;
// batch_add.cpp); the chunks' sums are then added in a fixed order
// (Jacobian add-2007-bl, 11M + 5S each), so the result does not depend on
// timing. Bases may be infinity or repeated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ec/jacobian.hpp"
#include "msm/pippenger.hpp"

namespace starzk {

// Number of 64-bit words of a bitmap over n entries: ceil(n / 64).
constexpr size_t bitmap_words(size_t n) { return (n + 63) / 64; }

// Σ of bases[i] over the set bits i. Throws std::invalid_argument if the
// bitmap has the wrong number of words or a bit set at or past bases.size().
template <class P>
jacobian_t<P> batch_add(std::span<const affine_t<P>> bases, std::span<const uint64_t> bitmap, unsigned threads = 0);
// The same with the MSM's switches: cfg.threads, and cfg.affine_buckets /
// cfg.lanes to take the affine buckets or their lanes out (the reference
// forms of the tests and benchmarks); the other fields are not read.
template <class P>
jacobian_t<P> batch_add(std::span<const affine_t<P>> bases, std::span<const uint64_t> bitmap, const msm_config_t& cfg);

}  // namespace starzk
