// The witness map: from a witness w to the three vectors a, b, c that the
// QAP evaluates on the domain (docs/prover.md step 1, "SpMV").
//
// Row i of the domain holds (A_i·w, B_i·w, C_i·w). Both conventions add
// n_public + 1 rows after the constraints, row n_constraints + s holding
// A = w[s] (s = 0..n_public) and B = C = 0: bellman's prover enforces
// "input_s · 0 = 0" for every input (wire 0 included), and snarkjs stores
// the same rows in the .zkey. They make the public wires' A-polynomials
// linearly independent, which Groth16's soundness needs. The remaining rows
// up to the domain size n are zero.
//
//   bellman / Filecoin keys: a, b, c come from the circuit's A, B, C.
//   snarkjs .zkey keys: a, b come from the key's own matrices (which already
//     hold the extra rows) and c = a∘b row by row (the key stores no C; for
//     a satisfying witness C_i·w = (A_i·w)(B_i·w) on every row).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ff/fr.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"

namespace starzk {

struct qap_rows_t {
  std::vector<fr_t> a, b, c;  // each domain_size long
};

// y[i] = Σ_k m.value(k)·w[m.col[k]] for every row i < m.n_rows (y.size()
// may be larger: the rest is left untouched). Parallel over rows; either
// value form (r1cs.hpp), chosen once per matrix.
//
// Filecoin witnesses are ~99% bits, so most terms need no product: the
// SpMV first classifies each w_j as zero, one or other (witness_kinds, one
// byte per wire), then per term skips a zero, adds the coefficient for a
// one (a masked addition, no branch on the bit), and multiplies only for
// the rest. The byte array is also what the rows' random gathers read,
// 1 byte instead of 32 per term for the bits. spmv_multiply_all is the
// plain form (a product per term): the reference the tests compare with.
enum : uint8_t { witness_zero = 0, witness_one = 1, witness_other = 2 };
std::vector<uint8_t> witness_kinds(std::span<const fr_t> w, unsigned threads = 0);
void spmv(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<const uint8_t> kinds, std::span<fr_t> y,
          unsigned threads = 0);
void spmv(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<fr_t> y, unsigned threads = 0);
void spmv_multiply_all(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<fr_t> y, unsigned threads = 0);

// a, b, c = A·w, B·w, C·w over the circuit's constraint rows, the three
// rows of each i computed together (one pass over the outputs, the rows
// of A, B and C side by side), each checked against a_i·b_i = c_i while
// in registers: returns the first broken constraint, if any (the rows are
// all written even then). a, b, c must hold n_constraints rows; the input
// rows and the padding are the caller's.
std::optional<uint64_t> spmv_rows_checked(const r1cs_t& cs, std::span<const fr_t> w, std::span<const uint8_t> kinds,
                                          std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c,
                                          unsigned threads = 0);

// The first row i < rows with a_i·b_i ≠ c_i, if any: for the rows of a
// bellman circuit's constraints, the first constraint the witness breaks,
// found from the witness map's output at the cost of one product per row
// (none where a_i or b_i is 0 or 1).
std::optional<uint64_t> first_unsatisfied_qap_row(std::span<const fr_t> a, std::span<const fr_t> b,
                                                  std::span<const fr_t> c, uint64_t rows, unsigned threads = 0);

// The rows of an R1CS circuit with the n_public + 1 input rows, padded to n.
qap_rows_t witness_map_r1cs(const r1cs_t& cs, std::span<const fr_t> w, uint64_t n, unsigned threads = 0);

// The rows of a snarkjs key (its own A and B; c = a∘b).
qap_rows_t witness_map_zkey(const proving_key_t& pk, std::span<const fr_t> w, unsigned threads = 0);

// The first constraint the witness does not satisfy, if any.
std::optional<uint64_t> first_unsatisfied_row(const r1cs_t& cs, std::span<const fr_t> w, unsigned threads = 0);

// Smallest power of two holding the constraints and the n_public + 1 input
// rows (what both snarkjs and bellman choose).
uint64_t domain_size_for(const r1cs_t& cs);

}  // namespace starzk
