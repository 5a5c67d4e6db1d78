// Out-of-line parts of fp2_t: the square root used by G2 decompression, and
// printing.
#include "ff/fp2.hpp"

namespace starzk {

namespace {
// (p - 3)/4 as an exponent (p ≡ 3 mod 4, so it is exact).
constexpr auto exp_p_minus_3_div_4 = limbs::shr(limbs::sub_small(fp_t::modulus, 3), 2);
}  // namespace

// The square root through ff::fp2_sqrt (ff/fp2_formulas.hpp derives it),
// over fp_t's square root and t^((p-3)/4); cuda/key_check_math.cuh runs the
// same formula over the device's Fp.
template <>
bool fp2_t::sqrt(fp2_t& out) const {
  return ff::fp2_sqrt(
      *this, out, [](const fp_t& v, fp_t& r) { return v.sqrt(r); },
      [](const fp_t& t) { return t.pow(std::span<const uint64_t>(exp_p_minus_3_div_4)); });
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
