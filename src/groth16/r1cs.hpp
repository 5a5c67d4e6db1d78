// Rank-1 constraint systems: the circuit a Groth16 proof is about.
//
// An R1CS over Fr has n_vars wires w (w[0] = 1, then the n_public public
// wires: outputs first, then public inputs; then the private inputs and
// internal wires) and three matrices A, B, C with n_constraints rows and
// n_vars columns. A witness w satisfies it when, for every row i,
//     (A_i · w) * (B_i · w) = C_i · w.
// The matrices are very sparse (a Filecoin PoRep partition has ~130M rows
// with 2.4 / 1 / 2.2 terms per row on average), so they are kept in
// compressed sparse row form (CSR): row i's terms are col[k], value(k) for
// k in [row_ptr[i], row_ptr[i+1]). Terms keep the order of the file they
// came from (the .zkey writer relies on it to reproduce snarkjs's bytes);
// a column may in principle appear twice in a row, and SpMV just sums.
// row_ptr is 64-bit (nnz(A) reaches 3e8 for one partition), col 32-bit.
//
// Values come in one of two forms:
//   plain: val[k], 32 bytes per term;
//   coded: code[k] (u16) indexes dict, the matrix's distinct values (at most
//     65536 of them). Circuit coefficients come from a tiny set (±1, powers
//     of two for bit packing, a few gadget constants), so a 2^27
//     Filecoin-shaped circuit (746M terms) takes 6 bytes per term plus row
//     pointers instead of 36: ~7.7 GB instead of ~30 GB.
// coded() tells which (val is empty when coded; code and dict when plain).
// Readers take value(k) (a branch per call) or, in hot loops, with_values(),
// which picks the form once per matrix and hands a value source to a
// template body. == compares values: a coded and a plain matrix with the
// same terms are equal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ff/fr.hpp"

namespace starzk {

inline constexpr size_t max_dict_size = 65536;  // codes are u16

struct sparse_matrix_t {
  uint64_t n_rows = 0;
  uint64_t n_cols = 0;
  std::vector<uint64_t> row_ptr;  // n_rows + 1 entries, row_ptr[0] = 0
  std::vector<uint32_t> col;      // nnz entries, each < n_cols
  std::vector<fr_t> val;          // plain form: nnz entries
  std::vector<uint16_t> code;     // coded form: nnz entries, each < dict.size()
  std::vector<fr_t> dict;         // coded form: 1..65536 distinct values

  uint64_t nnz() const { return uint64_t(col.size()); }
  bool coded() const { return !dict.empty(); }
  const fr_t& value(uint64_t k) const { return coded() ? dict[code[k]] : val[k]; }

  // An empty matrix of the given shape (row_ptr all zero), plain form.
  static sparse_matrix_t empty(uint64_t rows, uint64_t cols) {
    sparse_matrix_t m;
    m.n_rows = rows;
    m.n_cols = cols;
    m.row_ptr.assign(rows + 1, 0);
    return m;
  }

  // Same shape, row_ptr, col and values, whatever the forms.
  bool operator==(const sparse_matrix_t& o) const;
};

struct r1cs_t {
  uint32_t n_vars = 0;         // wires, including w[0] = 1
  uint32_t n_public = 0;       // outputs + public inputs, wire 0 not counted
  uint32_t n_constraints = 0;  // rows of a, b, c
  sparse_matrix_t a, b, c;

  bool operator==(const r1cs_t&) const = default;
};

// ---- value sources for hot loops ----------------------------------------------
struct plain_values_t {
  const fr_t* val;
  const fr_t& operator[](uint64_t k) const { return val[k]; }
};
struct coded_values_t {
  const uint16_t* code;
  const fr_t* dict;
  const fr_t& operator[](uint64_t k) const { return dict[code[k]]; }
};

// f(values) with the matrix's value source; the form is tested once here,
// never per term.
template <class F>
decltype(auto) with_values(const sparse_matrix_t& m, F&& f) {
  if (m.coded()) return f(coded_values_t{m.code.data(), m.dict.data()});
  return f(plain_values_t{m.val.data()});
}

// ---- coding ------------------------------------------------------------------
// Distinct values in order of first insertion, with a hash index (open
// addressing): the dictionary of a coded matrix while it is built.
class value_dict_t {
 public:
  // v's code, v added if new; nullopt when v is new and 65536 values exist.
  std::optional<uint16_t> insert(const fr_t& v);
  std::optional<uint16_t> find(const fr_t& v) const;
  size_t size() const { return values_.size(); }
  const std::vector<fr_t>& values() const { return values_; }
  std::vector<fr_t> take() {  // the values; the dictionary is empty after
    slots_.clear();
    return std::move(values_);
  }

 private:
  size_t slot_of(const fr_t& v) const;  // v's slot, or the empty one where it goes
  void grow();
  std::vector<fr_t> values_;
  std::vector<uint32_t> slots_;  // 0 = empty, else code + 1; power-of-two size, at most half full
};

// Codes a plain matrix in place: dict = its distinct values in order of first
// occurrence (so the result does not depend on `threads`), val freed. False
// (m unchanged) when it has more than 65536 distinct values; true when coded
// or already coded. A matrix without terms stays plain.
bool code_matrix(sparse_matrix_t& m, unsigned threads = 0);
// The plain form in place (val = dict[code]); no-op when plain.
void expand_matrix(sparse_matrix_t& m, unsigned threads = 0);
// All three matrices (each independently; true when all ended coded or empty).
bool code_circuit(r1cs_t& cs, unsigned threads = 0);
void expand_circuit(r1cs_t& cs, unsigned threads = 0);
// The nnz values as one array: m.val itself when plain, else expanded into
// `scratch` (for writers of formats that store plain values).
std::span<const fr_t> plain_values(const sparse_matrix_t& m, std::vector<fr_t>& scratch, unsigned threads = 0);
// The code of v in a coded matrix's dictionary (a linear search), appended
// if absent; nullopt when absent and the dictionary is full. m must be coded.
std::optional<uint16_t> dict_code(sparse_matrix_t& m, const fr_t& v);

// Builds a matrix term by term (a file reader): coded while the values fit a
// dictionary, switching once to the plain form if a 65537th distinct value
// comes. The caller pushes row_ptr itself; finish() installs the dictionary.
class matrix_builder_t {
 public:
  explicit matrix_builder_t(sparse_matrix_t& m) : m_(m) {}
  void add(uint32_t col, const fr_t& v);
  void finish();

 private:
  sparse_matrix_t& m_;
  value_dict_t dict_;
  bool plain_ = false;
};

}  // namespace starzk
