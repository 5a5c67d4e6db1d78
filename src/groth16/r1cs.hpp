// Rank-1 constraint systems: the circuit a Groth16 proof is about.
//
// An R1CS over Fr has n_vars wires w (w[0] = 1, then the n_public public
// wires: outputs first, then public inputs; then the private inputs and
// internal wires) and three matrices A, B, C with n_constraints rows and
// n_vars columns. A witness w satisfies it when, for every row i,
//     (A_i · w) * (B_i · w) = C_i · w.
// The matrices are very sparse (a Filecoin PoRep partition has ~130M rows
// with 2.4 / 1 / 2.2 terms per row on average), so they are kept in
// compressed sparse row form (CSR): row i's terms are col[k], val[k] for
// k in [row_ptr[i], row_ptr[i+1]). Terms keep the order of the file they
// came from (the .zkey writer relies on it to reproduce snarkjs's bytes);
// a column may in principle appear twice in a row, and SpMV just sums.
// row_ptr is 64-bit (nnz(A) reaches 3e8 for one partition), col 32-bit.
#pragma once

#include <cstdint>
#include <vector>

#include "ff/fr.hpp"

namespace starzk {

struct sparse_matrix_t {
  uint64_t n_rows = 0;
  uint64_t n_cols = 0;
  std::vector<uint64_t> row_ptr;  // n_rows + 1 entries, row_ptr[0] = 0
  std::vector<uint32_t> col;      // nnz entries, each < n_cols
  std::vector<fr_t> val;          // nnz entries

  uint64_t nnz() const { return uint64_t(col.size()); }

  // An empty matrix of the given shape (row_ptr all zero).
  static sparse_matrix_t empty(uint64_t rows, uint64_t cols) {
    sparse_matrix_t m;
    m.n_rows = rows;
    m.n_cols = cols;
    m.row_ptr.assign(rows + 1, 0);
    return m;
  }

  bool operator==(const sparse_matrix_t&) const = default;
};

struct r1cs_t {
  uint32_t n_vars = 0;         // wires, including w[0] = 1
  uint32_t n_public = 0;       // outputs + public inputs, wire 0 not counted
  uint32_t n_constraints = 0;  // rows of a, b, c
  sparse_matrix_t a, b, c;

  bool operator==(const r1cs_t&) const = default;
};

}  // namespace starzk
