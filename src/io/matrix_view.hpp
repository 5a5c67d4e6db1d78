// A CSR matrix seen in place (the arrays of a mapped file), as the CSR
// circuit file and the key cache store sparse_matrix_t: three sections per
// matrix, row_ptr (u64, n_rows + 1), col (u32, nnz), val (fr_t: 32 bytes,
// Montgomery form, exactly our in-memory limbs).
//
// Two levels of validation, as for the rest of the mapped formats:
//   check_matrix_shape (cheap, done on every open): the section lengths fit
//     the shape, row_ptr[0] = 0 and row_ptr[n_rows] = nnz;
//   check_matrix_indices (a full pass, in parallel): row_ptr never
//     decreases, every col < n_cols, every val is a canonical Montgomery
//     value (limbs < r). Prover code indexes the witness with col without
//     bounds checks, so a file that was not made by our writer must pass
//     this before it is used.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ff/fr.hpp"
#include "groth16/r1cs.hpp"

namespace starzk {

struct sparse_matrix_view_t {
  uint64_t n_rows = 0;
  uint64_t n_cols = 0;
  std::span<const uint64_t> row_ptr;
  std::span<const uint32_t> col;
  std::span<const fr_t> val;

  uint64_t nnz() const { return col.size(); }
  sparse_matrix_t to_matrix() const;
  static sparse_matrix_view_t of(const sparse_matrix_t& m);
};

// Both return "" when fine, else the problem ("row_ptr[7] = 3 is below
// row_ptr[6] = 5"); `name` prefixes it ("A: ...").
std::string check_matrix_shape(const sparse_matrix_view_t& m, const std::string& name);
std::string check_matrix_indices(const sparse_matrix_view_t& m, const std::string& name, unsigned threads = 0);

}  // namespace starzk
