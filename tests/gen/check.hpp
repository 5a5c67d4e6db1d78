// A plain, independent satisfaction check for the gen tests (row by row,
// one thread), so test_gen needs no more than the generator and src/io;
// prove_test.cpp cross-checks it against groth16's first_unsatisfied_row.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "groth16/r1cs.hpp"

namespace starzk::gen_test {

inline fr_t row_value(const sparse_matrix_t& m, std::span<const fr_t> w, uint64_t row) {
  fr_t acc = fr_t::zero();
  for (uint64_t k = m.row_ptr[row]; k < m.row_ptr[row + 1]; ++k) acc += m.value(k) * w[m.col[k]];
  return acc;
}

// The first row with (A_i·w)(B_i·w) ≠ C_i·w, if any.
inline std::optional<uint64_t> first_bad_row(const r1cs_t& cs, std::span<const fr_t> w) {
  for (uint64_t i = 0; i < cs.n_constraints; ++i)
    if (row_value(cs.a, w, i) * row_value(cs.b, w, i) != row_value(cs.c, w, i)) return i;
  return std::nullopt;
}

}  // namespace starzk::gen_test
