// Random inputs of the witness-map tests (spmv_test.cpp against the host
// map, spmv_pieces_test.cpp for the map with host matrices): CSR matrices
// with empty rows, rows of 1..3 terms, some of 9..200 and a few of
// 100..5000, duplicate columns, coefficients ±1 / powers of two / random;
// witnesses mostly 0/1; random bellman circuits; and the count of
// differing entries between two outputs.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "groth16/r1cs.hpp"

namespace starzk::gpu::test {

inline fr_t random_coeff(std::mt19937_64& rng) {
  const unsigned u = rng() % 100;
  if (u < 35) return fr_t::one();
  if (u < 60) return -fr_t::one();
  if (u < 75) return fr_t::from_u64(uint64_t(1) << (rng() % 40));  // bit packing: 2^i
  return fr_t::random(rng);
}

inline std::vector<fr_t> random_witness(std::mt19937_64& rng, size_t n) {
  std::vector<fr_t> w(n);
  for (auto& x : w) {
    const unsigned u = rng() % 100;
    x = u < 40 ? fr_t::zero() : u < 80 ? fr_t::one() : fr_t::random(rng);
  }
  if (n) w[0] = fr_t::one();
  return w;
}

// Row lengths: ~15% empty, ~80% 1..3, ~3% 9..200; n_long rows of 100..5000.
inline sparse_matrix_t random_matrix(std::mt19937_64& rng, uint64_t rows, uint64_t cols, size_t n_long) {
  sparse_matrix_t m = sparse_matrix_t::empty(rows, cols);
  std::vector<bool> is_long(rows, false);
  for (size_t t = 0; t < n_long && rows; ++t) is_long[rng() % rows] = true;
  for (uint64_t i = 0; i < rows; ++i) {
    const unsigned u = rng() % 100;
    uint64_t len = is_long[i] ? 100 + rng() % 4901 : u < 15 ? 0 : u < 97 ? 1 + rng() % 3 : 9 + rng() % 192;
    if (cols == 0) len = 0;
    for (uint64_t k = 0; k < len; ++k) {
      const bool dup = k > 0 && rng() % 10 == 0;  // a column twice in a row: SpMV sums both
      m.col.push_back(dup ? m.col.back() : uint32_t(rng() % cols));
      m.val.push_back(random_coeff(rng));
    }
    m.row_ptr[i + 1] = m.col.size();
  }
  return m;
}

// The same matrix coded (codes of its values in first-occurrence order).
inline sparse_matrix_t coded(sparse_matrix_t m) {
  EXPECT_TRUE(code_matrix(m, 2) && (m.nnz() == 0 || m.coded()));
  return m;
}

struct random_circuit_t {
  r1cs_t cs;
  std::vector<fr_t> w;
};

inline random_circuit_t random_circuit(std::mt19937_64& rng, uint32_t n_constraints, uint32_t n_public) {
  random_circuit_t r;
  r.cs.n_constraints = n_constraints;
  r.cs.n_public = n_public;
  r.cs.n_vars = n_public + 1 + 1 + uint32_t(rng() % 2000);
  r.cs.a = random_matrix(rng, n_constraints, r.cs.n_vars, n_constraints >= 1000 ? 3 : 0);
  r.cs.b = random_matrix(rng, n_constraints, r.cs.n_vars, n_constraints >= 1000 ? 2 : 0);
  r.cs.c = random_matrix(rng, n_constraints, r.cs.n_vars, n_constraints >= 1000 ? 3 : 0);
  r.w = random_witness(rng, r.cs.n_vars);
  return r;
}

// Number of differing entries; the first one goes to the log.
inline size_t mismatches(const std::vector<fr_t>& got, const std::vector<fr_t>& want, const char* what) {
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i] && bad++ == 0) ADD_FAILURE() << what << ": first mismatch at row " << i;
  return bad;
}

}  // namespace starzk::gpu::test
