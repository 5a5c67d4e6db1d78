// Out-of-line parts of fp2_t: the square root used by G2 decompression, and
// printing.
#include "ff/fp2.hpp"

namespace starzk {

namespace {
// (p - 3)/4 and (p - 1)/2 as exponents (p ≡ 3 mod 4, so both are exact).
constexpr auto exp_p_minus_3_div_4 = limbs::shr(limbs::sub_small(fp_t::modulus, 3), 2);
constexpr auto exp_p_minus_1_div_2 = limbs::shr(limbs::sub_small(fp_t::modulus, 1), 1);
}  // namespace

// Adj, Rodríguez-Henríquez, "Square root computation over even extension
// fields", eprint 2012/685, Algorithm 9 (F_q2 with q ≡ 3 mod 4, u^2 = -1):
//   a1    = a^((q-3)/4)
//   alpha = a1^2 · a = a^((q-1)/2)
//   a0    = alpha^q · alpha = a^((q^2-1)/2)    the quadratic character of a
//   if a0 == -1: a is not a square
//   x0    = a1 · a = a^((q+1)/4)
//   alpha == -1: x = u · x0
//   else:        x = (1 + alpha)^((q-1)/2) · x0
// Cost: two exponentiations of ~381 bits in F_p2. We then check x^2 == a,
// which also settles a = 0 (x = 0) without a special case.
template <>
bool fp2_t::sqrt(fp2_t& out) const {
  const fp2_t a1 = pow(std::span<const uint64_t>(exp_p_minus_3_div_4));
  const fp2_t alpha = a1.sqr() * *this;
  const fp2_t a0 = alpha.conjugate() * alpha;  // alpha^q is conjugation
  const fp2_t minus_one = -one();
  if (a0 == minus_one) return false;
  const fp2_t x0 = a1 * *this;
  fp2_t x;
  if (alpha == minus_one) {
    x = {-x0.c1, x0.c0};  // u · (c0 + c1 u) = -c1 + c0 u
  } else {
    const fp2_t b = (one() + alpha).pow(std::span<const uint64_t>(exp_p_minus_1_div_2));
    x = b * x0;
  }
  if (x.sqr() != *this) return false;
  out = x;
  return true;
}

template <>
std::string fp2_t::to_string() const {
  std::string s = "(";
  s += c0.to_decimal();
  s += ", ";
  s += c1.to_decimal();
  s += ")";
  return s;
}

}  // namespace starzk
