// The mapped starzk formats: the resident key cache (szkc) and the CSR
// circuit file (szcs), and the xxh64 checksum under both. Round trips of
// bellman keys (development setup), a snarkjs key (fixture .zkey) and the
// fixture circuits; zero-copy views (page-aligned spans equal to the key);
// malformed files: wrong magic / version, truncation at many offsets, a
// corrupt header, lying counts, misaligned or short sections, corrupt data
// (caught by the checksums), and data with valid checksums but bad points or
// indices (caught only by the full check).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <optional>
#include <memory>

#include "ec/encoding.hpp"
#include "groth16/setup.hpp"
#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io/csr_circuit.hpp"
#include "io/key_cache.hpp"
#include "io/r1cs.hpp"
#include "io/zkey.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

// ---- container surgery -------------------------------------------------------

uint64_t get_u64(const std::vector<uint8_t>& b, size_t at) { return load_u64_le(b.data() + at); }

struct table_t {
  size_t meta = 0, n = 0, entries = 0, head = 0;
};
table_t table_of(const std::vector<uint8_t>& b) {
  table_t t;
  t.n = get_u32(b, 12);
  t.meta = get_u64(b, 32);
  t.entries = 40 + t.meta;
  t.head = t.entries + 32 * t.n + 8;
  return t;
}
size_t entry(const std::vector<uint8_t>& b, size_t i) { return table_of(b).entries + 32 * i; }
uint64_t section_offset(const std::vector<uint8_t>& b, size_t i) { return get_u64(b, entry(b, i)); }
// Recomputes section i's checksum, then the header checksum.
void reseal(std::vector<uint8_t>& b, std::optional<size_t> section = std::nullopt) {
  const table_t t = table_of(b);
  if (section) {
    const size_t e = entry(b, *section);
    const uint64_t off = get_u64(b, e), bytes = get_u64(b, e + 8) * get_u64(b, e + 16);
    store_u64_le(b.data() + e + 24, block_checksum({b.data() + off, size_t(bytes)}));
  }
  store_u64_le(b.data() + t.head - 8, xxh64(b.data(), t.head - 8));
}

// ---- shared inputs -----------------------------------------------------------

r1cs_t holey_circuit() {
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

const proving_key_t& key(const std::string& name) {
  static std::map<std::string, std::unique_ptr<proving_key_t>> cache;
  auto& slot = cache[name];
  if (!slot) {
    if (name == "snarkjs") slot = std::make_unique<proving_key_t>(read_zkey(fixture("multiplier", "circuit.zkey")));
    else if (name == "holey") slot = std::make_unique<proving_key_t>(setup(holey_circuit(), h_convention_t::bellman_coset));
    else slot = std::make_unique<proving_key_t>(setup(read_r1cs(fixture(name, "circuit.r1cs")), h_convention_t::bellman_coset));
  }
  return *slot;
}

bool page_aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 4096 == 0; }

// ---- checksum ----------------------------------------------------------------

TEST(checksum, xxh64_reference_values) {
  // Published XXH64 values (seed 0).
  EXPECT_EQ(xxh64("", 0), 0xEF46DB3751D8E999ull);
  const char* s = "Nobody inspects the spammish repetition";  // 39 bytes: stripes and every tail step
  EXPECT_EQ(xxh64(s, std::strlen(s)), 0xFBCEA83C8A378BF1ull);
}

TEST(checksum, block_checksum_sees_every_byte) {
  std::vector<uint8_t> d(block_checksum_block + 1000);
  for (size_t i = 0; i < d.size(); ++i) d[i] = uint8_t(i * 131 + 7);
  const uint64_t h = block_checksum(d, 2);
  EXPECT_EQ(block_checksum(d, 1), h);  // independent of the thread count
  for (size_t at : {size_t(0), block_checksum_block - 1, block_checksum_block, d.size() - 1}) {
    d[at] ^= 0x10;
    EXPECT_NE(block_checksum(d, 2), h) << at;
    d[at] ^= 0x10;
  }
}

// ---- key cache ----------------------------------------------------------------

class key_cache_roundtrip : public ::testing::TestWithParam<std::string> {
 protected:
  scratch_t tmp;
};

TEST_P(key_cache_roundtrip, write_read_view) {
  const proving_key_t& k = key(GetParam());
  const fs::path file = tmp / "key.szkc";
  write_key_cache(file, k);
  EXPECT_EQ(read_key_cache(file), k);
  EXPECT_EQ(read_key_cache(file, cache_check_t::full, 1), k);
  check_key_cache(file);

  const key_cache_view_t v(file);
  EXPECT_EQ(v.to_proving_key(), k);
  EXPECT_EQ(v.vk(), k.vk);
  ASSERT_EQ(v.a.size(), k.a.size());
  EXPECT_TRUE(std::equal(v.b_g2.begin(), v.b_g2.end(), k.b_g2.begin()));
  for (const void* p : {(const void*)v.ic.data(), (const void*)v.h.data(), (const void*)v.a.data(),
                        (const void*)v.b_g2.data()}) {
    EXPECT_TRUE(page_aligned(p));
  }
  // The spans point into the mapping (no copy).
  const auto& f = v.container().file();
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(v.h.data()), f.data() + v.container().section(1).offset);
}

INSTANTIATE_TEST_SUITE_P(keys, key_cache_roundtrip, ::testing::Values("multiplier", "holey", "snarkjs"));

class key_cache_malformed : public ::testing::Test {
 protected:
  void SetUp() override {
    good = tmp / "good.szkc";
    write_key_cache(good, key("multiplier"));
    bytes = read_bytes(good);
  }
  fs::path write(const std::vector<uint8_t>& b) {
    const fs::path bad = tmp / "bad.szkc";
    write_bytes(bad, b);
    return bad;
  }
  // Every reader refuses it, naming the file and the problem.
  void expect_bad(const std::vector<uint8_t>& b, const std::string& problem) {
    const fs::path bad = write(b);
    expect_io_error([&] { key_cache_view_t v(bad); }, bad, problem);
    expect_io_error([&] { read_key_cache(bad); }, bad, problem);
    expect_io_error([&] { check_key_cache(bad); }, bad, problem);
  }
  // Only the full check (every point) refuses it.
  void expect_only_full_check_fails(const std::vector<uint8_t>& b, const std::string& problem) {
    const fs::path bad = write(b);
    EXPECT_NO_THROW(read_key_cache(bad, cache_check_t::checksums));
    expect_io_error([&] { check_key_cache(bad); }, bad, problem);
  }
  scratch_t tmp;
  fs::path good;
  std::vector<uint8_t> bytes;
};

TEST_F(key_cache_malformed, magic_version_byte_order) {
  auto b = bytes;
  std::memcpy(b.data(), "szcs", 4);
  expect_bad(b, "wrong magic: expected 'szkc', found 'szcs'");
  b = bytes;
  b[4] = 2;
  expect_bad(b, "unsupported version 2");
  b = bytes;
  store_u32_le(b.data() + 8, 0x04030201);
  expect_bad(b, "byte order");
  expect_bad({}, "truncated");
}

TEST_F(key_cache_malformed, truncated_at_many_offsets) {
  const table_t t = table_of(bytes);
  std::vector<size_t> cuts = {1, 4, 39, 40, 100, t.head - 9, t.head - 1, t.head, 4096, bytes.size() - 1};
  for (size_t i = 0; i < t.n; ++i) {
    const uint64_t off = section_offset(bytes, i);
    if (off < bytes.size()) cuts.push_back(off + 1);
  }
  for (size_t cut : cuts) {
    SCOPED_TRACE(cut);
    expect_bad(std::vector<uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(cut)), "truncated");
  }
  auto b = bytes;
  b.push_back(0);
  expect_bad(b, "the header says");
}

TEST_F(key_cache_malformed, corrupt_header_and_lying_counts) {
  auto b = bytes;
  b[40 + 4] ^= 1;  // n_vars, checksum not updated
  expect_bad(b, "header checksum mismatch");
  b = bytes;
  store_u32_le(b.data() + 40 + 4, key("multiplier").n_vars + 1);  // n_vars, resealed
  reseal(b);
  expect_bad(b, "section 2 (l) has 66 elements, the header's shape needs 67");
  b = bytes;
  store_u64_le(b.data() + entry(b, 3) + 8, get_u64(b, entry(b, 3) + 8) + 1);  // a count + 1: still fits
  reseal(b);
  expect_bad(b, "section 3 (a) has 69 elements, the header's shape needs 68");
  b = bytes;
  store_u64_le(b.data() + entry(b, 3) + 8, get_u64(b, entry(b, 3) + 8) + 100);  // runs into b_g1
  reseal(b);
  expect_bad(b, "section 4 (b_g1) at offset " + std::to_string(section_offset(b, 4)) + " overlaps");
  b = bytes;
  store_u64_le(b.data() + entry(b, 1) + 16, 48);  // h elements of 48 bytes
  reseal(b);
  expect_bad(b, "section 1 (h) has elements of 48 bytes, expected 96");
}

TEST_F(key_cache_malformed, misaligned_and_short_sections) {
  auto b = bytes;
  store_u64_le(b.data() + entry(b, 5), section_offset(b, 5) + 8);
  reseal(b);
  expect_bad(b, "section 5 (b_g2) at offset " + std::to_string(section_offset(bytes, 5) + 8) + " is misaligned");
  // The file and its declared size cut short inside the last section.
  b = bytes;
  b.resize(b.size() - 192);
  store_u64_le(b.data() + 16, b.size());
  reseal(b);
  expect_bad(b, "truncated: section 5 (b_g2) needs");
}

TEST_F(key_cache_malformed, corrupt_data_caught_by_checksums) {
  auto b = bytes;
  b[section_offset(b, 3) + 96 * 10 + 5] ^= 1;  // a point of `a`, not a sampled one
  const fs::path bad = write(b);
  EXPECT_NO_THROW(key_cache_view_t v(bad));  // the header alone is fine
  expect_io_error([&] { read_key_cache(bad); }, bad, "section 3 (a): checksum mismatch");
  expect_io_error([&] { check_key_cache(bad); }, bad, "section 3 (a): checksum mismatch");
}

TEST_F(key_cache_malformed, bad_points_found_by_the_full_check) {
  const uint64_t h = section_offset(bytes, 1);
  auto b = bytes;
  b[h + 96 * 3 + 60] ^= 1;  // h[3].y: off the curve
  reseal(b, 1);
  expect_only_full_check_fails(b, "section 1 (h) point 3 is not on the curve");

  b = bytes;
  std::memset(b.data() + h + 96 * 2, 0, 96);  // h[2] = O
  reseal(b, 1);
  expect_only_full_check_fails(b, "section 1 (h) point 2 is the point at infinity");

  b = bytes;
  std::memset(b.data() + h + 96 * 2, 0xff, 48);  // h[2].x >= p
  reseal(b, 1);
  expect_only_full_check_fails(b, "section 1 (h) point 2 has a coordinate that is not below p");

  // On the curve, outside the subgroup.
  g1_affine_t p;
  for (uint8_t x = 1;; ++x) {
    uint8_t c[48] = {};
    c[0] = 0x80;
    c[47] = x;
    if (decode_g1_compressed(c, p, decode_check::on_curve) == decode_status::ok) break;
    ASSERT_LT(x, 200);
  }
  ASSERT_FALSE(p.is_in_subgroup());
  b = bytes;
  std::memcpy(b.data() + h + 96 * 4, &p, 96);
  reseal(b, 1);
  expect_only_full_check_fails(b, "section 1 (h) point 4 is not in the prime-order subgroup");
}

TEST_F(key_cache_malformed, sampled_check_catches_foreign_layout) {
  auto b = bytes;
  const uint64_t a = section_offset(b, 3);
  b[a + 50] ^= 0x5a;  // a[0] (always sampled) off the curve, checksum resealed
  reseal(b, 3);
  expect_bad(b, "section 3 (a) point 0 is not on the curve (sampled check");
}

TEST(key_cache_write, refuses_inconsistent_keys) {
  scratch_t tmp;
  const fs::path file = tmp / "k.szkc";
  proving_key_t k = key("multiplier");
  k.h.pop_back();
  expect_io_error([&] { write_key_cache(file, k); }, file, "query lengths");
  k = key("snarkjs");
  k.zkey_a.row_ptr.pop_back();
  expect_io_error([&] { write_key_cache(file, k); }, file, "row_ptr has");
  EXPECT_FALSE(fs::exists(file));
}

// ---- CSR circuit -------------------------------------------------------------

class csr_roundtrip : public ::testing::TestWithParam<std::string> {
 protected:
  scratch_t tmp;
};

TEST_P(csr_roundtrip, write_read_view) {
  const r1cs_t r = GetParam() == "holey" ? holey_circuit() : read_r1cs(fixture(GetParam(), "circuit.r1cs"));
  const fs::path file = tmp / "c.szcs";
  write_csr_circuit(file, r);
  EXPECT_EQ(read_csr_circuit(file), r);
  check_csr_circuit(file, 1);
  const csr_circuit_view_t v(file);
  EXPECT_EQ(v.to_r1cs(), r);
  EXPECT_EQ(v.n_constraints, r.n_constraints);
  EXPECT_TRUE(std::equal(v.c.val.begin(), v.c.val.end(), r.c.val.begin(), r.c.val.end()));
  EXPECT_TRUE(page_aligned(v.a.row_ptr.data()));
  EXPECT_TRUE(page_aligned(v.b.col.data()));
  EXPECT_TRUE(page_aligned(v.c.val.data()));
}

INSTANTIATE_TEST_SUITE_P(circuits, csr_roundtrip, ::testing::Values("multiplier", "bits", "mimc", "holey"));

TEST(csr_roundtrip_edge, empty_circuit) {
  scratch_t tmp;
  r1cs_t r;
  r.n_vars = 1;
  r.a = r.b = r.c = sparse_matrix_t::empty(0, 1);
  write_csr_circuit(tmp / "e.szcs", r);
  EXPECT_EQ(read_csr_circuit(tmp / "e.szcs"), r);
}

class csr_malformed : public ::testing::Test {
 protected:
  void SetUp() override {
    good = tmp / "good.szcs";
    write_csr_circuit(good, read_r1cs(fixture("multiplier", "circuit.r1cs")));
    bytes = read_bytes(good);
  }
  fs::path write(const std::vector<uint8_t>& b) {
    const fs::path bad = tmp / "bad.szcs";
    write_bytes(bad, b);
    return bad;
  }
  void expect_bad(const std::vector<uint8_t>& b, const std::string& problem) {
    const fs::path bad = write(b);
    expect_io_error([&] { csr_circuit_view_t v(bad); }, bad, problem);
    expect_io_error([&] { read_csr_circuit(bad); }, bad, problem);
  }
  // Opens (header and shapes are fine) but fails the index validation.
  void expect_bad_indices(const std::vector<uint8_t>& b, const std::string& problem) {
    const fs::path bad = write(b);
    EXPECT_NO_THROW(csr_circuit_view_t v(bad, true));
    expect_io_error([&] { check_csr_circuit(bad); }, bad, problem);
    expect_io_error([&] { read_csr_circuit(bad); }, bad, problem);
  }
  scratch_t tmp;
  fs::path good;
  std::vector<uint8_t> bytes;
};

TEST_F(csr_malformed, header) {
  // A key cache is not a circuit.
  scratch_t other;
  write_key_cache(other / "k.szkc", key("holey"));
  const fs::path k = other / "k.szkc";
  expect_io_error([&] { csr_circuit_view_t v(k); }, k, "wrong magic: expected 'szcs', found 'szkc'");
  auto b = bytes;
  b[4] = 9;
  expect_bad(b, "unsupported version 9");
  b = bytes;
  b[40] ^= 1;
  expect_bad(b, "header checksum mismatch");
  b = bytes;
  store_u64_le(b.data() + 40 + 24, 70);  // A.n_cols
  reseal(b);
  expect_bad(b, "A is 66 x 70, expected n_constraints x n_vars = 66 x 68");
  const table_t t = table_of(bytes);
  for (size_t cut : {size_t(0), size_t(12), t.head - 1, size_t(section_offset(bytes, 8) + 7), bytes.size() - 1}) {
    SCOPED_TRACE(cut);
    expect_bad(std::vector<uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(cut)), "truncated");
  }
  b = bytes;
  store_u64_le(b.data() + entry(b, 4), section_offset(b, 4) + 4);
  reseal(b);
  expect_bad(b, "section 4 (B col) at offset");
}

TEST_F(csr_malformed, shapes_checked_on_open) {
  auto b = bytes;
  const uint64_t rp = section_offset(b, 0);
  store_u64_le(b.data() + rp, 1);  // A row_ptr[0] = 1
  reseal(b, 0);
  expect_bad(b, "A: row_ptr[0] = 1, not 0");
  b = bytes;
  const uint64_t rows = 66;
  store_u64_le(b.data() + rp + 8 * rows, get_u64(b, rp + 8 * rows) - 1);  // row_ptr[n] != nnz
  reseal(b, 0);
  expect_bad(b, "A: row_ptr[66] = ");
}

TEST_F(csr_malformed, indices_checked_in_full) {
  auto b = bytes;
  const uint64_t rp = section_offset(b, 3);  // B row_ptr
  store_u64_le(b.data() + rp + 8 * 5, get_u64(b, rp + 8 * 6) + 1);  // row_ptr[5] > row_ptr[6]
  reseal(b, 3);
  expect_bad_indices(b, "B: row_ptr[6] = ");
  b = bytes;
  store_u32_le(b.data() + section_offset(b, 7), 68);  // C col[0] = n_vars
  reseal(b, 7);
  expect_bad_indices(b, "C: entry 0 has column 68, the matrix has 68");
  b = bytes;
  std::memset(b.data() + section_offset(b, 2) + 32 * 3, 0xff, 32);  // A val[3] >= r
  reseal(b, 2);
  expect_bad_indices(b, "A: entry 3 has a value that is not below r");
  // Without resealing, the checksum catches it first.
  b = bytes;
  b[section_offset(b, 2) + 32 * 3] ^= 1;
  const fs::path bad = write(b);
  expect_io_error([&] { read_csr_circuit(bad); }, bad, "section 2 (A val): checksum mismatch");
}

}  // namespace
}  // namespace starzk::test
