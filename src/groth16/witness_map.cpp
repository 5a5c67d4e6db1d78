// SpMV over CSR matrices and the two witness maps; see witness_map.hpp.
#include "groth16/witness_map.hpp"

#include <atomic>
#include <iterator>
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

// The same sum with the wires' kinds: v·0 = 0 and v·1 = v need no product.
// For a bit the coefficient is ANDed with 0 or all ones and added, so the
// ~50/50 mix of zeros and ones costs no mispredicted branch; only the rare
// other values take the branch to a product.
template <class V>
fr_t row_dot_kinds(const sparse_matrix_t& m, const V& val, std::span<const fr_t> w, const uint8_t* kinds, uint64_t i) {
  fr_t acc = fr_t::zero();
  for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) {
    const uint32_t j = m.col[k];
    const uint8_t kind = kinds[j];
    const fr_t& v = val[k];
    if (kind == witness_other) [[unlikely]] {
      acc += v * w[j];
      continue;
    }
    const uint64_t mask = uint64_t(0) - uint64_t(kind);  // 0 or all ones
    fr_t t;
    for (size_t x = 0; x < std::size(t.l); ++x) t.l[x] = v.l[x] & mask;
    acc += t;
  }
  return acc;
}

// a·b = c, with a product only where neither factor is 0 or 1 (in
// Filecoin-shaped circuits B·w is mostly one wire, a bit).
bool row_holds(const fr_t& a, const fr_t& b, const fr_t& c) {
  const fr_t one = fr_t::one();
  return a.is_zero() || b.is_zero() ? c.is_zero() : a == one ? b == c : b == one ? a == c : a * b == c;
}

// Lowers `first` to i (the smallest broken row wins among threads).
void note_broken(std::atomic<uint64_t>& first, uint64_t i) {
  uint64_t cur = first.load();
  while (i < cur && !first.compare_exchange_weak(cur, i)) {
  }
}

void check_spmv_shapes(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<fr_t> y) {
  if (y.size() < m.n_rows) throw std::invalid_argument("spmv: output shorter than the matrix");
  if (w.size() < m.n_cols) throw std::invalid_argument("spmv: witness shorter than the matrix width");
}

}  // namespace

std::vector<uint8_t> witness_kinds(std::span<const fr_t> w, unsigned threads) {
  std::vector<uint8_t> kinds(w.size());
  const fr_t one = fr_t::one();
  parallel_for(w.size(), threads, [&](uint64_t begin, uint64_t end) {
    for (uint64_t j = begin; j < end; ++j)
      kinds[j] = w[j].is_zero() ? witness_zero : w[j] == one ? witness_one : witness_other;
  });
  return kinds;
}

void spmv(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<const uint8_t> kinds, std::span<fr_t> y,
          unsigned threads) {
  check_spmv_shapes(m, w, y);
  if (kinds.size() != w.size()) throw std::invalid_argument("spmv: one kind per witness value expected");
  with_values(m, [&](const auto& val) {
    parallel_for(m.n_rows, threads, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) y[i] = row_dot_kinds(m, val, w, kinds.data(), i);
    });
  });
}

void spmv(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<fr_t> y, unsigned threads) {
  spmv(m, w, witness_kinds(w, threads), y, threads);
}

void spmv_multiply_all(const sparse_matrix_t& m, std::span<const fr_t> w, std::span<fr_t> y, unsigned threads) {
  check_spmv_shapes(m, w, y);
  with_values(m, [&](const auto& val) {
    parallel_for(m.n_rows, threads, [&](uint64_t begin, uint64_t end) {
      for (uint64_t i = begin; i < end; ++i) y[i] = row_dot(m, val, w, i);
    });
  });
}

std::optional<uint64_t> spmv_rows_checked(const r1cs_t& cs, std::span<const fr_t> w, std::span<const uint8_t> kinds,
                                          std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c, unsigned threads) {
  const uint64_t rows = cs.n_constraints;
  check_spmv_shapes(cs.a, w, a);
  check_spmv_shapes(cs.b, w, b);
  check_spmv_shapes(cs.c, w, c);
  if (cs.a.n_rows < rows || cs.b.n_rows < rows || cs.c.n_rows < rows || a.size() < rows || b.size() < rows ||
      c.size() < rows)
    throw std::invalid_argument("spmv_rows_checked: fewer rows than constraints");
  if (kinds.size() != w.size()) throw std::invalid_argument("spmv: one kind per witness value expected");
  std::atomic<uint64_t> first{UINT64_MAX};
  with_values(cs.a, [&](const auto& va) {
    with_values(cs.b, [&](const auto& vb) {
      with_values(cs.c, [&](const auto& vc) {
        parallel_for(rows, threads, [&](uint64_t begin, uint64_t end) {
          for (uint64_t i = begin; i < end; ++i) {
            a[i] = row_dot_kinds(cs.a, va, w, kinds.data(), i);
            b[i] = row_dot_kinds(cs.b, vb, w, kinds.data(), i);
            c[i] = row_dot_kinds(cs.c, vc, w, kinds.data(), i);
            if (!row_holds(a[i], b[i], c[i])) [[unlikely]]
              note_broken(first, i);
          }
        });
      });
    });
  });
  const uint64_t f = first.load();
  if (f == UINT64_MAX) return std::nullopt;
  return f;
}

std::optional<uint64_t> first_unsatisfied_qap_row(std::span<const fr_t> a, std::span<const fr_t> b,
                                                  std::span<const fr_t> c, uint64_t rows, unsigned threads) {
  if (a.size() < rows || b.size() < rows || c.size() < rows)
    throw std::invalid_argument("first_unsatisfied_qap_row: rows longer than the vectors");
  std::atomic<uint64_t> first{UINT64_MAX};
  parallel_for(rows, threads, [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end && i < first.load(std::memory_order_relaxed); ++i)
      if (!row_holds(a[i], b[i], c[i])) {
        note_broken(first, i);
        return;
      }
  });
  const uint64_t f = first.load();
  if (f == UINT64_MAX) return std::nullopt;
  return f;
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
  const std::vector<uint8_t> kinds = witness_kinds(w, threads);
  spmv(cs.a, w, kinds, q.a, threads);
  spmv(cs.b, w, kinds, q.b, threads);
  spmv(cs.c, w, kinds, q.c, threads);
  // Input rows: A = w[s], B = C = 0, for s = 0..n_public.
  for (uint64_t s = 0; s <= cs.n_public; ++s) q.a[cs.n_constraints + s] = w[s];
  return q;
}

qap_rows_t witness_map_zkey(const proving_key_t& pk, std::span<const fr_t> w, unsigned threads) {
  if (pk.convention != root_convention_t::snarkjs)
    throw std::invalid_argument("witness_map_zkey needs a snarkjs (.zkey) key");
  check_witness_length(pk.n_vars, w);
  const uint64_t n = pk.domain_size;
  if (pk.zkey_a.n_rows > n || pk.zkey_b.n_rows > n)
    throw std::invalid_argument("key matrices have more rows than its domain");
  qap_rows_t q;
  q.a.assign(n, fr_t::zero());
  q.b.assign(n, fr_t::zero());
  q.c.assign(n, fr_t::zero());
  const std::vector<uint8_t> kinds = witness_kinds(w, threads);
  spmv(pk.zkey_a, w, kinds, q.a, threads);
  spmv(pk.zkey_b, w, kinds, q.b, threads);
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
