// Helpers for the tests of starzk's mapped formats (page_container.hpp: the
// key cache and the CSR circuit file): byte-level surgery on a container's
// section table (offsets, counts, checksums resealed so that only the
// intended fault is left), and a small circuit with an unused wire.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "groth16/r1cs.hpp"
#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io_test_util.hpp"

namespace starzk::test {

inline uint64_t get_u64(const std::vector<uint8_t>& b, size_t at) { return load_u64_le(b.data() + at); }

struct table_t {
  size_t meta = 0, n = 0, entries = 0, head = 0;
};
inline table_t table_of(const std::vector<uint8_t>& b) {
  table_t t;
  t.n = get_u32(b, 12);
  t.meta = get_u64(b, 32);
  t.entries = 40 + t.meta;
  t.head = t.entries + 32 * t.n + 8;
  return t;
}
inline size_t entry(const std::vector<uint8_t>& b, size_t i) { return table_of(b).entries + 32 * i; }
inline uint64_t section_offset(const std::vector<uint8_t>& b, size_t i) { return get_u64(b, entry(b, i)); }
// Recomputes section i's checksum, then the header checksum.
inline void reseal(std::vector<uint8_t>& b, std::optional<size_t> section = std::nullopt) {
  const table_t t = table_of(b);
  if (section) {
    const size_t e = entry(b, *section);
    const uint64_t off = get_u64(b, e), bytes = get_u64(b, e + 8) * get_u64(b, e + 16);
    store_u64_le(b.data() + e + 24, block_checksum({b.data() + off, size_t(bytes)}));
  }
  store_u64_le(b.data() + t.head - 8, xxh64(b.data(), t.head - 8));
}

// Two rows per matrix, values 2 and 3 (plain), wire 4 used nowhere.
inline r1cs_t holey_circuit() {
  r1cs_t cs;
  cs.n_vars = 5;
  cs.n_public = 1;
  cs.n_constraints = 2;
  auto matrix = [](std::vector<uint32_t> rows) {
    sparse_matrix_t m = sparse_matrix_t::empty(rows.size(), 5);
    for (size_t i = 0; i < rows.size(); ++i) {
      m.col.push_back(rows[i]);
      m.val.push_back(fr_t::from_u64(i + 2));
      m.row_ptr[i + 1] = m.col.size();
    }
    return m;
  };
  cs.a = matrix({2, 3});
  cs.b = matrix({3, 0});
  cs.c = matrix({1, 3});
  return cs;
}

inline bool page_aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 4096 == 0; }

}  // namespace starzk::test
