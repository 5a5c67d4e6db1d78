// getrandom(2) behind a UniformRandomBitGenerator; see random.hpp.
#include "groth16/random.hpp"

#include <sys/random.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace starzk {

csprng_t::result_type csprng_t::operator()() {
  uint64_t v = 0;
  auto* p = reinterpret_cast<unsigned char*>(&v);
  size_t got = 0;
  while (got < sizeof v) {
    ssize_t n = getrandom(p + got, sizeof v - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += size_t(n);
  }
  return v;
}

fr_t random_fr() {
  csprng_t rng;
  return fr_t::random(rng);
}

}  // namespace starzk
