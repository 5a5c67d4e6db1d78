// Coded sparse matrices: the value dictionary, coding and expanding, and
// value equality (r1cs.hpp).
#include "groth16/r1cs.hpp"

#include <atomic>

#include "util/parallel.hpp"

namespace starzk {

namespace {

// Mixes the four Montgomery limbs (values of one matrix are distinct field
// elements, so their limbs already look random; the multiplications spread
// small differences of the low limb over the bits the slot index takes).
uint64_t hash_of(const fr_t& v) {
  uint64_t h =
      v.l[0] ^ (v.l[1] * 0x9e3779b97f4a7c15ull) ^ (v.l[2] * 0xbf58476d1ce4e5b9ull) ^ (v.l[3] * 0x94d049bb133111ebull);
  h ^= h >> 31;
  h *= 0xd6e8feb86659fd93ull;
  return h ^ (h >> 32);
}

}  // namespace

// ---- value_dict_t ----------------------------------------------------------

size_t value_dict_t::slot_of(const fr_t& v) const {
  const size_t mask = slots_.size() - 1;
  for (size_t s = hash_of(v) & mask;; s = (s + 1) & mask) {  // linear probing; never full
    if (slots_[s] == 0 || values_[slots_[s] - 1] == v) return s;
  }
}

void value_dict_t::grow() {
  slots_.assign(slots_.empty() ? 64 : 2 * slots_.size(), 0);
  for (size_t c = 0; c < values_.size(); ++c) slots_[slot_of(values_[c])] = uint32_t(c + 1);
}

std::optional<uint16_t> value_dict_t::insert(const fr_t& v) {
  if (slots_.empty()) grow();
  size_t s = slot_of(v);
  if (slots_[s] != 0) return uint16_t(slots_[s] - 1);
  if (values_.size() == max_dict_size) return std::nullopt;
  values_.push_back(v);
  if (2 * values_.size() > slots_.size()) {
    grow();  // re-slots every value, v included
  } else {
    slots_[s] = uint32_t(values_.size());
  }
  return uint16_t(values_.size() - 1);
}

std::optional<uint16_t> value_dict_t::find(const fr_t& v) const {
  if (slots_.empty()) return std::nullopt;
  const size_t s = slot_of(v);
  if (slots_[s] == 0) return std::nullopt;
  return uint16_t(slots_[s] - 1);
}

// ---- equality ----------------------------------------------------------------

bool sparse_matrix_t::operator==(const sparse_matrix_t& o) const {
  if (n_rows != o.n_rows || n_cols != o.n_cols || row_ptr != o.row_ptr || col != o.col) return false;
  if (!coded() && !o.coded()) return val == o.val;
  if (coded() && o.coded() && dict == o.dict) return code == o.code;
  // Different forms or dictionaries: value by value (bounds-checked, so a
  // malformed matrix compares unequal instead of reading out of range).
  const size_t n = coded() ? code.size() : val.size();
  if (n != (o.coded() ? o.code.size() : o.val.size())) return false;
  auto at = [](const sparse_matrix_t& m, size_t k) -> const fr_t* {
    if (!m.coded()) return &m.val[k];
    return m.code[k] < m.dict.size() ? &m.dict[m.code[k]] : nullptr;
  };
  for (size_t k = 0; k < n; ++k) {
    const fr_t *x = at(*this, k), *y = at(o, k);
    if (x == nullptr || y == nullptr || *x != *y) return false;
  }
  return true;
}

// ---- coding and expanding ------------------------------------------------------

bool code_matrix(sparse_matrix_t& m, unsigned threads) {
  if (m.coded()) return true;
  const uint64_t nnz = m.val.size();
  if (nnz == 0) return true;
  // Pass 1: each chunk lists its distinct values in order of first
  // occurrence; merged in chunk order they give the global first-occurrence
  // order, whatever the chunking.
  const size_t chunks = std::min<uint64_t>(resolve_threads(threads), (nnz + 4095) / 4096);
  std::vector<value_dict_t> local(chunks);
  std::atomic<bool> too_many{false};
  parallel_tasks(chunks, threads, [&](size_t t) {
    const uint64_t begin = nnz * t / chunks, end = nnz * (t + 1) / chunks;
    for (uint64_t k = begin; k < end && !too_many.load(std::memory_order_relaxed); ++k)
      if (!local[t].insert(m.val[k])) too_many = true;
  });
  if (too_many) return false;
  value_dict_t dict;
  for (const value_dict_t& d : local)
    for (const fr_t& v : d.values())
      if (!dict.insert(v)) return false;
  local.clear();
  // Pass 2: every value is in the dictionary now.
  std::vector<uint16_t> code(nnz);
  parallel_for(
      nnz, threads,
      [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) code[k] = *dict.find(m.val[k]);
      },
      4096);
  m.code = std::move(code);
  m.dict = dict.take();
  std::vector<fr_t>().swap(m.val);
  return true;
}

void expand_matrix(sparse_matrix_t& m, unsigned threads) {
  if (!m.coded()) return;
  std::vector<fr_t> val;
  (void)plain_values(m, val, threads);
  m.val = std::move(val);
  std::vector<uint16_t>().swap(m.code);
  std::vector<fr_t>().swap(m.dict);
}

bool code_circuit(r1cs_t& cs, unsigned threads) {
  bool all = true;
  for (sparse_matrix_t* m : {&cs.a, &cs.b, &cs.c}) all = code_matrix(*m, threads) && all;
  return all;
}

void expand_circuit(r1cs_t& cs, unsigned threads) {
  for (sparse_matrix_t* m : {&cs.a, &cs.b, &cs.c}) expand_matrix(*m, threads);
}

std::span<const fr_t> plain_values(const sparse_matrix_t& m, std::vector<fr_t>& scratch, unsigned threads) {
  if (!m.coded()) return m.val;
  scratch.resize(m.code.size());
  parallel_for(
      scratch.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k) scratch[k] = m.dict[m.code[k]];
      },
      4096);
  return scratch;
}

std::optional<uint16_t> dict_code(sparse_matrix_t& m, const fr_t& v) {
  for (size_t c = 0; c < m.dict.size(); ++c)
    if (m.dict[c] == v) return uint16_t(c);
  if (m.dict.size() == max_dict_size) return std::nullopt;
  m.dict.push_back(v);
  return uint16_t(m.dict.size() - 1);
}

// ---- matrix_builder_t ------------------------------------------------------------

void matrix_builder_t::add(uint32_t col, const fr_t& v) {
  m_.col.push_back(col);
  if (!plain_) {
    if (const auto c = dict_.insert(v)) {
      m_.code.push_back(*c);
      return;
    }
    // A 65537th distinct value: the matrix goes plain for good.
    m_.val.reserve(m_.code.capacity());
    for (uint16_t c : m_.code) m_.val.push_back(dict_.values()[c]);
    std::vector<uint16_t>().swap(m_.code);
    plain_ = true;
  }
  m_.val.push_back(v);
}

void matrix_builder_t::finish() {
  if (!plain_ && dict_.size() > 0) m_.dict = dict_.take();
}

}  // namespace starzk
