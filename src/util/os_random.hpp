// fill_random: bytes from the operating system's CSPRNG (getrandom(2)), in
// bulk. The one place the code reads the OS's randomness: the proof's
// blinding scalars (groth16/random.hpp draws them through it) and the
// random exponents of key validation's batched subgroup tests on G1 and G2
// (msm/batch_membership.hpp), which must be drawn after the key is fixed,
// from a source its author cannot predict. No user-space state, so nothing is
// shared across forks or reused across processes; safe from several
// threads at once.
#pragma once

#include <sys/random.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>

namespace starzk {

// Fills `out`, as many getrandom calls as it takes (one may return fewer
// bytes than asked: a signal, or a request past 32 MiB); throws
// std::runtime_error if the OS refuses.
inline void fill_random(std::span<uint8_t> out) {
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = getrandom(out.data() + got, out.size() - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("getrandom failed: ") + std::strerror(errno));
    }
    got += size_t(n);
  }
}

}  // namespace starzk
