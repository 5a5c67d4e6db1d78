// Compile-time proof that the 32-bit limb literals of field_constants.hpp are
// the constants src/ff derives from the moduli (modulus, R mod m, R^2 mod m,
// -m^-1 mod 2^32), and that the curve constants of the key checks have the
// algebraic properties that define them. A typo in a literal stops the build
// here instead of producing wrong products on the GPU.
//
// The curve constants are checked by property, in Montgomery arithmetic of
// the host fp_t (constexpr): beta^2 + beta + 1 = 0; psi_cx = c·u with
// c^3 = -1 (psi_cx^3 = (1+u)^-(p-1) = u, and (c u)^3 = -c^3 u); psi_cy = a + b u
// with psi_cy^2 = u, i.e. a^2 = b^2 and 2ab = 1. Each property leaves two or
// three candidates; which one curve.cpp chose is checked against
// g1_params::endo_beta() / g2_params::psi_cx(), psi_cy() at run time by
// tests/cuda/key_check_test.cpp (CudaKeyCheck.DeviceConstantsMatchHost, no
// device needed), and by every subgroup test on the GPU.
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

constexpr fp_t fp_of(const uint32_t (&d)[12]) {
  std::array<uint64_t, 6> l{};
  for (size_t i = 0; i < 6; ++i) l[i] = uint64_t(d[2 * i]) | uint64_t(d[2 * i + 1]) << 32;
  return fp_t::from_mont_limbs(l);
}
constexpr fp_t beta = fp_of(consts::fp_beta), cx = fp_of(consts::fp_psi_cx_c1);
constexpr fp_t cy0 = fp_of(consts::fp_psi_cy_c0), cy1 = fp_of(consts::fp_psi_cy_c1);
static_assert(fp_of(consts::fp_four) == fp_t::from_u64(4));
static_assert((beta * beta + beta + fp_t::one()).is_zero());
static_assert(cx * cx * cx == -fp_t::one() && cx != -fp_t::one());
static_assert(cy0 * cy0 == cy1 * cy1 && (cy0 * cy1).dbl() == fp_t::one());
static_assert(same<6>(consts::fp_p_plus_1_div_4, limbs::shr(limbs::add_small(fp_t::modulus, 1), 2)));
static_assert(same<6>(consts::fp_p_minus_3_div_4, limbs::shr(limbs::sub_small(fp_t::modulus, 3), 2)));
static_assert(same<6>(consts::fp_p_minus_1_div_2, fp_t::half_m));

}  // namespace
}  // namespace starzk::gpu
