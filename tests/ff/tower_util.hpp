// Helpers shared by the tower tests: big exponents (p^k, (p^k - 1)/d) as
// little-endian limb vectors, built by schoolbook multiplication.
#pragma once

#include <vector>

#include "ff/ff.hpp"

namespace starzk::test {

inline std::vector<uint64_t> big_mul(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> r(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    limbs::u128 carry = 0;
    for (size_t j = 0; j < b.size(); ++j) {
      limbs::u128 t = limbs::u128(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = uint64_t(t);
      carry = t >> 64;
    }
    r[i + b.size()] = uint64_t(carry);
  }
  return r;
}

// p^k as limbs.
inline std::vector<uint64_t> p_pow(unsigned k) {
  std::vector<uint64_t> r{1};
  const std::vector<uint64_t> p(fp_t::modulus.begin(), fp_t::modulus.end());
  for (unsigned i = 0; i < k; ++i) r = big_mul(r, p);
  return r;
}

// (p^k - 1)/d, asserting exact division.
inline std::vector<uint64_t> p_pow_minus_1_div(unsigned k, uint64_t d) {
  std::vector<uint64_t> r = p_pow(k);
  for (size_t i = 0; i < r.size(); ++i) {  // r -= 1
    if (r[i]-- != 0) break;
  }
  limbs::u128 rem = 0;
  for (size_t i = r.size(); i-- > 0;) {
    limbs::u128 cur = (rem << 64) | r[i];
    r[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  if (rem != 0) throw std::logic_error("p^k - 1 not divisible");
  return r;
}

inline fp2_t xi() { return {fp_t::one(), fp_t::one()}; }  // 1 + u

}  // namespace starzk::test
