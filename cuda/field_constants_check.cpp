// Compile-time proof that the 32-bit limb literals of field_constants.hpp are
// the constants src/ff derives from the moduli (modulus, R mod m, R^2 mod m,
// -m^-1 mod 2^32). A typo in a literal stops the build here instead of
// producing wrong products on the GPU.
#include "cuda/field_constants.hpp"

#include "ff/fp.hpp"
#include "ff/fr.hpp"

namespace starzk::gpu {
namespace {

template <size_t N>
constexpr bool same(const uint32_t (&d)[2 * N], const std::array<uint64_t, N>& h) {
  for (size_t i = 0; i < N; ++i)
    if (d[2 * i] != uint32_t(h[i]) || d[2 * i + 1] != uint32_t(h[i] >> 32)) return false;
  return true;
}

static_assert(same<6>(consts::fp_mod, fp_t::modulus));
static_assert(same<6>(consts::fp_one, fp_t::r1_mod));
static_assert(same<6>(consts::fp_r2, fp_t::r2_mod));
static_assert(consts::fp_m0 == uint32_t(fp_t::m_inv));
static_assert(same<4>(consts::fr_mod, fr_t::modulus));
static_assert(same<4>(consts::fr_one, fr_t::r1_mod));
static_assert(same<4>(consts::fr_r2, fr_t::r2_mod));
static_assert(consts::fr_m0 == uint32_t(fr_t::m_inv));

}  // namespace
}  // namespace starzk::gpu
