// CSR views: conversion and validation (matrix_view.hpp).
#include "io/matrix_view.hpp"

#include <limits>
#include <mutex>

#include "util/parallel.hpp"

namespace starzk {

sparse_matrix_t sparse_matrix_view_t::to_matrix() const {
  sparse_matrix_t m;
  m.n_rows = n_rows;
  m.n_cols = n_cols;
  m.row_ptr.assign(row_ptr.begin(), row_ptr.end());
  m.col.assign(col.begin(), col.end());
  m.val.assign(val.begin(), val.end());
  m.code.assign(code.begin(), code.end());
  m.dict.assign(dict.begin(), dict.end());
  return m;
}

sparse_matrix_view_t sparse_matrix_view_t::of(const sparse_matrix_t& m) {
  return {m.n_rows, m.n_cols, m.row_ptr, m.col, m.val, m.code, m.dict};
}

namespace {

// "" when the value arrays fit the shape (see matrix_view.hpp).
std::string check_value_lengths(const sparse_matrix_view_t& m, const std::string& name) {
  const std::string nnz = std::to_string(m.nnz());
  if (m.dict.size() > max_dict_size)
    return name + ": a dictionary of " + std::to_string(m.dict.size()) + " values, at most " +
           std::to_string(max_dict_size) + " allowed";
  if (!m.coded()) {
    if (!m.code.empty()) return name + ": " + std::to_string(m.code.size()) + " codes but an empty dictionary";
    if (m.val.size() != m.nnz()) return name + ": " + nnz + " columns but " + std::to_string(m.val.size()) + " values";
    return "";
  }
  if (!m.val.empty()) return name + ": both values and codes (a matrix has one form)";
  if (m.code.size() != m.nnz()) return name + ": " + nnz + " columns but " + std::to_string(m.code.size()) + " codes";
  return "";
}

}  // namespace

std::string check_matrix_shape(const sparse_matrix_view_t& m, const std::string& name) {
  if (m.n_rows == std::numeric_limits<uint64_t>::max() || m.row_ptr.size() != m.n_rows + 1) {
    return name + ": row_ptr has " + std::to_string(m.row_ptr.size()) + " entries for " + std::to_string(m.n_rows) +
           " rows (needs rows + 1)";
  }
  if (std::string s = check_value_lengths(m, name); !s.empty()) return s;
  if (m.row_ptr.front() != 0) return name + ": row_ptr[0] = " + std::to_string(m.row_ptr.front()) + ", not 0";
  if (m.row_ptr.back() != m.nnz()) {
    return name + ": row_ptr[" + std::to_string(m.n_rows) + "] = " + std::to_string(m.row_ptr.back()) +
           " but there are " + std::to_string(m.nnz()) + " entries";
  }
  return "";
}

std::string check_matrix_indices(const sparse_matrix_view_t& m, const std::string& name, unsigned threads) {
  if (std::string s = check_matrix_shape(m, name); !s.empty()) return s;
  // Each chunk reports its first problem; the lowest-indexed one wins, so
  // the message does not depend on the thread count.
  std::mutex mu;
  uint64_t bad_at = std::numeric_limits<uint64_t>::max();
  std::string bad;
  auto report = [&](uint64_t at, std::string why) {
    std::lock_guard<std::mutex> lock(mu);
    if (at < bad_at) {
      bad_at = at;
      bad = std::move(why);
    }
  };
  parallel_for(
      m.n_rows, threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          if (m.row_ptr[i + 1] < m.row_ptr[i]) {
            report(i, name + ": row_ptr[" + std::to_string(i + 1) + "] = " + std::to_string(m.row_ptr[i + 1]) +
                          " is below row_ptr[" + std::to_string(i) + "] = " + std::to_string(m.row_ptr[i]));
            return;
          }
        }
      },
      4096);
  if (!bad.empty()) return bad;
  // The dictionary once (it is small), then per term the column and the
  // value or code.
  for (size_t c = 0; c < m.dict.size(); ++c) {
    fr_t tmp;
    if (!fr_t::from_mont_bytes_le(reinterpret_cast<const uint8_t*>(&m.dict[c]), tmp))
      return name + ": dictionary entry " + std::to_string(c) + " is not below r";
  }
  const bool coded = m.coded();
  parallel_for(
      m.nnz(), threads,
      [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) {
          if (m.col[k] >= m.n_cols) {
            report(k, name + ": entry " + std::to_string(k) + " has column " + std::to_string(m.col[k]) +
                          ", the matrix has " + std::to_string(m.n_cols));
            return;
          }
          if (coded) {
            if (m.code[k] >= m.dict.size()) {
              report(k, name + ": entry " + std::to_string(k) + " has code " + std::to_string(m.code[k]) +
                            ", the dictionary has " + std::to_string(m.dict.size()) + " values");
              return;
            }
            continue;
          }
          fr_t tmp;
          if (!fr_t::from_mont_bytes_le(reinterpret_cast<const uint8_t*>(&m.val[k]), tmp)) {
            report(k, name + ": entry " + std::to_string(k) + " has a value that is not below r");
            return;
          }
        }
      },
      4096);
  return bad;
}

}  // namespace starzk
