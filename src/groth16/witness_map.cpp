// SpMV over CSR matrices and the two witness maps; see witness_map.hpp.
#include "groth16/witness_map.hpp"

#include <atomic>
#include <stdexcept>
#include <string>

#include "util/parallel.hpp"

namespace starzk {

namespace {

void check_witness_length(uint64_t n_vars, std::span<const fr_t> w) {
  if (w.size() != n_vars)
    throw std::invalid_argument("witness has " + std::to_string(w.size()) + " values, the circuit has " +
                                std::to_string(n_vars) + " wires");
}

// Σ_k value(k)·w[col[k]] over row i's terms; V is the matrix's value source
// (r1cs.hpp with_values), fixed for the whole matrix.
template <class V>
fr_t row_dot(const sparse_matrix_t& m, const V& val, std::span<const fr_t> w, uint64_t i) {
  fr_t acc = fr_t::zero();
  for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) acc += val[k] * w[m.col[k]];
  return acc;
}

}  // namespace

void spmv(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<fr_t> y, unsigned threads) {
  if (y.size() < m.n_rows) throw std::invalid_argument("spmv: output shorter than the matrix");
  if (w.size() < m.n_cols) throw std::invalid_argument("spmv: witness shorter than the matrix width");
  with_values(m, [&](const auto& val) {
    parallel_for(m.n_rows, threads, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) y[i] = row_dot(m, val, w, i);
    });
  });
}

uint64_t domain_size_for(const r1cs_t& cs) {
  uint64_t rows = uint64_t(cs.n_constraints) + cs.n_public + 1;
  uint64_t n = 1;
  while (n < rows) n <<= 1;
  return n;
}

qap_rows_t witness_map_r1cs(const r1cs_t& cs, std::span<const fr_t> w, uint64_t n, unsigned threads) {
  check_witness_length(cs.n_vars, w);
  const uint64_t rows = uint64_t(cs.n_constraints) + cs.n_public + 1;
  if (n < rows)
    throw std::invalid_argument("domain of size " + std::to_string(n) + " cannot hold " + std::to_string(rows) +
                                " rows (constraints + public inputs + 1)");
  qap_rows_t q;
  q.a.assign(n, fr_t::zero());
  q.b.assign(n, fr_t::zero());
  q.c.assign(n, fr_t::zero());
  spmv(cs.a, w, q.a, threads);
  spmv(cs.b, w, q.b, threads);
  spmv(cs.c, w, q.c, threads);
  // Input rows: A = w[s], B = C = 0, for s = 0..n_public.
  for (uint64_t s = 0; s <= cs.n_public; ++s) q.a[cs.n_constraints + s] = w[s];
  return q;
}

qap_rows_t witness_map_zkey(const proving_key_t& pk, std::span<const fr_t> w, unsigned threads) {
  if (pk.convention != h_convention_t::snarkjs_odd_coset)
    throw std::invalid_argument("witness_map_zkey needs a snarkjs (.zkey) key");
  check_witness_length(pk.n_vars, w);
  const uint64_t n = pk.domain_size;
  if (pk.zkey_a.n_rows > n || pk.zkey_b.n_rows > n)
    throw std::invalid_argument("key matrices have more rows than its domain");
  qap_rows_t q;
  q.a.assign(n, fr_t::zero());
  q.b.assign(n, fr_t::zero());
  q.c.assign(n, fr_t::zero());
  spmv(pk.zkey_a, w, q.a, threads);
  spmv(pk.zkey_b, w, q.b, threads);
  parallel_for(n, threads, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) q.c[i] = q.a[i] * q.b[i];
  });
  return q;
}

std::optional<uint64_t> first_unsatisfied_row(const r1cs_t& cs, std::span<const fr_t> w, unsigned threads) {
  check_witness_length(cs.n_vars, w);
  std::atomic<uint64_t> first{UINT64_MAX};
  // The three value sources are fixed before the loop (8 instantiations).
  with_values(cs.a, [&](const auto& va) {
    with_values(cs.b, [&](const auto& vb) {
      with_values(cs.c, [&](const auto& vc) {
        parallel_for(cs.n_constraints, threads, [&](uint64_t begin, uint64_t end) {
          for (uint64_t i = begin; i < end && i < first.load(std::memory_order_relaxed); ++i) {
            if (!(row_dot(cs.a, va, w, i) * row_dot(cs.b, vb, w, i) == row_dot(cs.c, vc, w, i))) {
              uint64_t cur = first.load();
              while (i < cur && !first.compare_exchange_weak(cur, i)) {
              }
              return;
            }
          }
        });
      });
    });
  });
  uint64_t f = first.load();
  if (f == UINT64_MAX) return std::nullopt;
  return f;
}

}  // namespace starzk
