// Out-of-line parts of fp2_t: the square root used by G2 decompression, and
// printing.
#include "ff/fp2.hpp"

namespace starzk {

namespace {
// (p - 3)/4 as an exponent (p ≡ 3 mod 4, so it is exact).
constexpr auto exp_p_minus_3_div_4 = limbs::shr(limbs::sub_small(fp_t::modulus, 3), 2);
}  // namespace

// The square root of a = a0 + a1·u (u^2 = -1, p ≡ 3 mod 4) from two
// exponentiations in F_p (the "complex method"; before, two in F_p2, ~2.4x
// the products):
//   a1 = 0: a0 is a square in F_p, or -a0 is (-1 is not one): x = sqrt(a0),
//           or x = sqrt(-a0)·u, since u^2 = -1.
//   else:   n = a0^2 + a1^2 is the norm of a, and a is a square in F_p2
//           iff n is one in F_p: d = sqrt(n). A root x = x0 + x1·u has
//           x0^2 - x1^2 = a0 and 2·x0·x1 = a1, so x0^2 = t solves
//           4t^2 - 4·a0·t - a1^2 = 0: t = (a0 ± d)/2, and the two
//           candidates multiply to -(a1/2)^2, a non-square (-1 is one), so
//           exactly one is a square in F_p. Take t = (a0 + d)/2 (t != 0)
//           and e = t^((p-3)/4), so e^2·t = t^((p-1)/2) = ±1:
//             e^2·t = 1:  x0 = e·t (x0^2 = e^2·t^2 = t), and
//                         x1 = a1/(2·x0) = a1·e/2 (1/x0 = e, as e·x0 = 1);
//             e^2·t = -1: the square is t' = (a0 - d)/2 = -(a1/2)^2/t, a
//                         root of it x0 = (a1/2)·e (e^2 = -1/t), and
//                         x1 = a1/(2·x0) = 1/e = -e·t.
// Either way x^2 == a is checked at the end, which also settles a = 0.
// cuda/key_check_math.cuh sqrt_of (Fp2) is its twin.
template <>
bool fp2_t::sqrt(fp2_t& out) const {
  fp2_t x;
  fp_t r;
  if (c1.is_zero()) {
    if (c0.sqrt(r))
      x = {r, fp_t::zero()};
    else if ((-c0).sqrt(r))
      x = {fp_t::zero(), r};
    else
      return false;
  } else {
    if (!(c0.sqr() + c1.sqr()).sqrt(r)) return false;  // r = d
    const fp_t t = (c0 + r).halve();
    const fp_t e = t.pow(std::span<const uint64_t>(exp_p_minus_3_div_4));
    const fp_t et = e * t;
    if (e * et == fp_t::one())
      x = {et, (c1 * e).halve()};
    else
      x = {c1.halve() * e, -et};
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
