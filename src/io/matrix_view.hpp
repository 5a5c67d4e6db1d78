// A CSR matrix seen in place (the arrays of a mapped file), as the CSR
// circuit file and the key cache store sparse_matrix_t: row_ptr (u64,
// n_rows + 1), col (u32, nnz), then the values in one of the two forms of
// groth16/r1cs.hpp: val (fr_t: 32 bytes, Montgomery form, exactly our
// in-memory limbs), or code (u16, nnz) into dict (fr_t, at most 65536).
// A view is coded when dict is not empty.
//
// Two levels of validation, as for the rest of the mapped formats:
//   check_matrix_shape (cheap, done on every open): the section lengths fit
//     the shape (one value form only, nnz values or codes, a dictionary of
//     at most 65536 entries and not empty when there are codes),
//     row_ptr[0] = 0 and row_ptr[n_rows] = nnz;
//   check_matrix_indices (a full pass, in parallel): row_ptr never
//     decreases, every col < n_cols, every value (val or dict entry) is a
//     canonical Montgomery value (limbs < r), every code < dict size. Prover
//     code indexes the witness with col and the dictionary with code without
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
  std::span<const fr_t> val;       // plain form
  std::span<const uint16_t> code;  // coded form
  std::span<const fr_t> dict;

  uint64_t nnz() const { return col.size(); }
  bool coded() const { return !dict.empty(); }
  sparse_matrix_t to_matrix() const;
  static sparse_matrix_view_t of(const sparse_matrix_t& m);
};

// Both return "" when fine, else the problem ("row_ptr[7] = 3 is below
// row_ptr[6] = 5"); `name` prefixes it ("A: ...").
std::string check_matrix_shape(const sparse_matrix_view_t& m, const std::string& name);
std::string check_matrix_indices(const sparse_matrix_view_t& m, const std::string& name, unsigned threads = 0);

}  // namespace starzk
