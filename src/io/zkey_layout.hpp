// The .zkey layout facts shared by its reader (zkey.cpp) and writer
// (zkey_write.cpp): section ids, the size of a section 4 entry, and the
// Montgomery factors of section 4's values (zkey.hpp has the format).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ff/fr.hpp"

namespace starzk::zkey_layout {

enum : uint32_t {
  sec_protocol = 1,
  sec_header = 2,
  sec_ic = 3,
  sec_coeffs = 4,
  sec_a = 5,
  sec_b1 = 6,
  sec_b2 = 7,
  sec_c = 8,
  sec_h = 9,
  sec_mpc = 10,
};
inline constexpr uint32_t protocol_groth16 = 1;
inline constexpr size_t coeff_bytes = 12 + 32;

// Montgomery factor for section 4. An fr_t holding limbs x has value
// x·R^-1; the file stores the integer v·R². Reading: limbs v·R² times the
// element whose limbs are 1 (value R^-1) gives limbs v·R²·1·R^-1 = v·R,
// i.e. the value v (one Montgomery multiplication). Writing: v times the
// element whose limbs are R² mod r (value R) has value v·R, whose
// Montgomery limbs are v·R², the integer the file wants.
inline const fr_t& limbs_one() {
  static const fr_t x = fr_t::from_mont_limbs({1, 0, 0, 0});
  return x;
}
inline const fr_t& value_r() {
  static const fr_t x = fr_t::from_mont_limbs(fr_t::r2_mod);
  return x;
}

}  // namespace starzk::zkey_layout
