// Randomness for proofs and development keys, from the operating system's
// CSPRNG (getrandom(2), no user-space state), so every proof's blinding
// scalars r, s are fresh and never reused across processes or forks.
//
// csprng_t satisfies UniformRandomBitGenerator, so fr_t::random(rng)
// (uniform by rejection sampling) can draw from it directly; the same
// source in bulk is util/os_random.hpp's fill_random.
#pragma once

#include <cstdint>
#include <limits>

#include "ff/fr.hpp"

namespace starzk {

class csprng_t {
 public:
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<uint64_t>::max(); }
  result_type operator()();  // throws std::runtime_error if the OS refuses
};

// A uniformly random element of F_r from the OS CSPRNG.
fr_t random_fr();

}  // namespace starzk
