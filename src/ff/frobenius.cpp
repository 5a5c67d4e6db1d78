// Builds the Frobenius coefficient table declared in ff/frobenius.hpp.
#include "ff/frobenius.hpp"

namespace starzk {

namespace {
frobenius_coeffs_t build() {
  frobenius_coeffs_t t;
  auto e = fp_t::m_minus_1;  // (p - 1)/6, exact since p ≡ 1 (mod 6)
  const uint64_t rem = limbs::div_small(e, 6);
  if (rem != 0) throw std::logic_error("frobenius: p != 1 mod 6");
  const fp2_t xi = fp2_t::one().mul_by_nonresidue();  // 1 + u
  const fp2_t g1 = xi.pow(std::span<const uint64_t>(e));
  fp2_t g = fp2_t::one();
  for (unsigned k = 0; k < 12; ++k) {
    t.w[k] = g;
    t.v[k] = g.sqr();
    t.v2[k] = t.v[k].sqr();
    g = g.conjugate() * g1;
  }
  return t;
}
}  // namespace

const frobenius_coeffs_t& frobenius_coeffs() {
  static const frobenius_coeffs_t table = build();
  return table;
}

}  // namespace starzk
