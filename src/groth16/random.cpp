// The OS CSPRNG (util/os_random.hpp) behind a UniformRandomBitGenerator;
// see random.hpp.
#include "groth16/random.hpp"

#include "util/os_random.hpp"

namespace starzk {

csprng_t::result_type csprng_t::operator()() {
  uint64_t v = 0;
  fill_random(std::span<uint8_t>(reinterpret_cast<uint8_t*>(&v), sizeof v));
  return v;
}

fr_t random_fr() {
  csprng_t rng;
  return fr_t::random(rng);
}

}  // namespace starzk
