// The CSR circuit file (szcs), both versions: version 2 (coded matrices:
// u16 codes into a dictionary) for coded circuits, version 1 (32-byte
// values) for plain ones and mixtures, both read back to equal circuits and
// seen in place by the view. Malformed files of each version, made by
// surgery on good ones or written raw through the container: wrong version,
// lying lengths, a dictionary too large or missing, corrupt data (caught by
// the checksums), and codes or dictionary entries with valid checksums but
// out of range (caught only by the full check). Every error names the file.
#include <gtest/gtest.h>

#include <cstring>

#include "gen/filecoin_shape.hpp"
#include "groth16/setup.hpp"
#include "io/csr_circuit.hpp"
#include "io/key_cache.hpp"
#include "io/r1cs.hpp"
#include "io_test_util.hpp"
#include "mapped_test_util.hpp"

namespace starzk::test {
namespace {

r1cs_t circuit_named(const std::string& name) {
  if (name == "holey") return holey_circuit();
  if (name == "gen") return generate_circuit({10, 328, 3}, 2);
  return read_r1cs(fixture(name, "circuit.r1cs"));
}

r1cs_t expanded(r1cs_t r) {
  expand_circuit(r);
  return r;
}

r1cs_t coded(r1cs_t r) {
  EXPECT_TRUE(code_circuit(r));
  return r;
}

// ---- round trips ------------------------------------------------------------------

class csr_roundtrip : public ::testing::TestWithParam<std::string> {
 protected:
  scratch_t tmp;
};

// Version 2 from the coded form, version 1 from the plain form; each reads
// back to its own form, and all four circuits are equal.
TEST_P(csr_roundtrip, both_versions) {
  const r1cs_t c = coded(circuit_named(GetParam()));
  const r1cs_t p = expanded(c);
  for (const r1cs_t* r : {&c, &p}) {
    const bool is_coded = r == &c;
    const fs::path file = tmp / (is_coded ? "c.szcs" : "p.szcs");
    write_csr_circuit(file, *r);
    const r1cs_t back = read_csr_circuit(file);
    EXPECT_TRUE(back == *r);
    EXPECT_TRUE(back == c && back == p);
    EXPECT_EQ(back.a.coded(), is_coded);
    check_csr_circuit(file, 1);
    const csr_circuit_view_t v(file);
    EXPECT_EQ(v.version(), is_coded ? csr_circuit_version_coded : csr_circuit_version_plain);
    EXPECT_EQ(v.to_r1cs(), *r);
    EXPECT_EQ(v.n_constraints, r->n_constraints);
    EXPECT_TRUE(page_aligned(v.a.row_ptr.data()));
    EXPECT_TRUE(page_aligned(v.b.col.data()));
    if (is_coded) {
      EXPECT_TRUE(v.c.coded());
      EXPECT_TRUE(v.c.val.empty());
      EXPECT_TRUE(std::equal(v.c.code.begin(), v.c.code.end(), r->c.code.begin(), r->c.code.end()));
      EXPECT_TRUE(std::equal(v.c.dict.begin(), v.c.dict.end(), r->c.dict.begin(), r->c.dict.end()));
      EXPECT_TRUE(page_aligned(v.c.code.data()));
      EXPECT_TRUE(page_aligned(v.c.dict.data()));
    } else {
      EXPECT_FALSE(v.c.coded());
      EXPECT_TRUE(std::equal(v.c.val.begin(), v.c.val.end(), r->c.val.begin(), r->c.val.end()));
      EXPECT_TRUE(page_aligned(v.c.val.data()));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(circuits, csr_roundtrip, ::testing::Values("multiplier", "bits", "mimc", "holey", "gen"));

// The generator's circuit is coded: version 2, ~6 bytes a term instead of 36.
TEST(csr_sizes, coded_file_is_small) {
  scratch_t tmp;
  const r1cs_t c = circuit_named("gen");
  write_csr_circuit(tmp / "c.szcs", c);
  write_csr_circuit(tmp / "p.szcs", expanded(c));
  const uint64_t nnz = c.a.nnz() + c.b.nnz() + c.c.nnz(), rows = 3ull * c.n_constraints;
  const uint64_t coded_bytes = fs::file_size(tmp / "c.szcs"), plain_bytes = fs::file_size(tmp / "p.szcs");
  EXPECT_LE(coded_bytes, 6 * nnz + 8 * rows + 3 * 32 * 600 + 13 * 4096);
  EXPECT_GE(plain_bytes, 36 * nnz + 8 * rows);
}

// A coded matrix among plain ones (or with terms): version 1, values
// expanded for the file.
TEST(csr_roundtrip_edge, mixed_forms_write_version_1) {
  scratch_t tmp;
  r1cs_t r = expanded(circuit_named("multiplier"));
  ASSERT_TRUE(code_matrix(r.b));
  write_csr_circuit(tmp / "m.szcs", r);
  EXPECT_EQ(csr_circuit_view_t(tmp / "m.szcs").version(), csr_circuit_version_plain);
  const r1cs_t back = read_csr_circuit(tmp / "m.szcs");
  EXPECT_FALSE(back.b.coded());
  EXPECT_TRUE(back == r);
}

TEST(csr_roundtrip_edge, empty_circuit) {
  scratch_t tmp;
  r1cs_t r;
  r.n_vars = 1;
  r.a = r.b = r.c = sparse_matrix_t::empty(0, 1);
  write_csr_circuit(tmp / "e.szcs", r);
  EXPECT_EQ(read_csr_circuit(tmp / "e.szcs"), r);
  // Coded matrices without terms next to an empty one: version 2.
  r.n_constraints = 2;
  r.a = r.b = r.c = sparse_matrix_t::empty(2, 1);
  r.a.dict = {fr_t::one()};
  write_csr_circuit(tmp / "e2.szcs", r);
  EXPECT_EQ(csr_circuit_view_t(tmp / "e2.szcs").version(), csr_circuit_version_coded);
  EXPECT_EQ(read_csr_circuit(tmp / "e2.szcs"), r);
}

// ---- malformed files --------------------------------------------------------------

// A good file of one version (the multiplier circuit), and the checks.
class csr_malformed_base : public ::testing::Test {
 protected:
  void make_good(bool coded_form) {
    good = tmp / "good.szcs";
    const r1cs_t r = circuit_named("multiplier");
    write_csr_circuit(good, coded_form ? coded(r) : expanded(r));
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

class csr_malformed : public csr_malformed_base {
 protected:
  void SetUp() override { make_good(false); }
};

class csr_malformed_v2 : public csr_malformed_base {
 protected:
  void SetUp() override { make_good(true); }
};

TEST_F(csr_malformed, header) {
  // A key cache is not a circuit.
  scratch_t other;
  write_key_cache(other / "k.szkc", setup(holey_circuit(), root_convention_t::bellman));
  const fs::path k = other / "k.szkc";
  expect_io_error([&] { csr_circuit_view_t v(k); }, k, "wrong magic: expected 'szcs', found 'szkc'");
  auto b = bytes;
  b[4] = 9;
  expect_bad(b, "unsupported version 9 (this build reads versions 1, 2");
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
  const uint64_t rp = section_offset(b, 3);                         // B row_ptr
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

// Version 2 sections: 0-3 A row_ptr, col, code, dict; 4-7 B; 8-11 C.
TEST_F(csr_malformed_v2, header) {
  auto b = bytes;
  b[4] = 3;
  expect_bad(b, "unsupported version 3 (this build reads versions 1, 2");
  b = bytes;
  b[4] = 1;  // a version 2 file claiming version 1
  reseal(b);
  expect_bad(b, "has 12 sections, expected 9");
  b = bytes;
  store_u64_le(b.data() + entry(b, 3) + 16, 16);  // A dict of 16-byte elements
  reseal(b);
  expect_bad(b, "section 3 (A dict) has elements of 16 bytes, expected 32");
  const table_t t = table_of(bytes);
  for (size_t cut : {t.head - 1, size_t(section_offset(bytes, 11) + 31), bytes.size() - 1}) {
    SCOPED_TRACE(cut);
    expect_bad(std::vector<uint8_t>(bytes.begin(), bytes.begin() + std::ptrdiff_t(cut)), "truncated");
  }
}

TEST_F(csr_malformed_v2, lying_lengths) {
  // Fewer codes than columns (the table shortened, the bytes still there).
  auto b = bytes;
  const uint64_t nnz_a = get_u64(b, entry(b, 1) + 8);
  store_u64_le(b.data() + entry(b, 2) + 8, nnz_a - 1);
  reseal(b, 2);
  expect_bad(b, "A: " + std::to_string(nnz_a) + " columns but " + std::to_string(nnz_a - 1) + " codes");
  // Codes but no dictionary.
  b = bytes;
  store_u64_le(b.data() + entry(b, 7) + 8, 0);  // B dict count 0
  reseal(b, 7);
  expect_bad(b, "B: " + std::to_string(get_u64(b, entry(b, 6) + 8)) + " codes but an empty dictionary");
}

// A dictionary past 65536 entries cannot come from the writer: written raw.
TEST_F(csr_malformed_v2, dictionary_too_large) {
  const r1cs_t r = coded(circuit_named("multiplier"));
  std::vector<fr_t> big(max_dict_size + 1);
  for (size_t i = 0; i < big.size(); ++i) big[i] = fr_t::from_u64(i);
  std::vector<page_section_data_t> sections;
  for (const sparse_matrix_t* m : {&r.a, &r.b, &r.c}) {
    sections.push_back(starzk::section_of<uint64_t>(m->row_ptr));
    sections.push_back(starzk::section_of<uint32_t>(m->col));
    sections.push_back(starzk::section_of<uint16_t>(m->code));
    sections.push_back(
        starzk::section_of<fr_t>(m == &r.c ? std::span<const fr_t>(big) : std::span<const fr_t>(m->dict)));
  }
  const csr_circuit_view_t good_view(good);
  const std::vector<uint8_t> meta(good_view.container().meta().begin(), good_view.container().meta().end());
  const fs::path bad = tmp / "big.szcs";
  write_page_container(bad, "szcs", csr_circuit_version_coded, meta, sections);
  expect_io_error([&] { csr_circuit_view_t v(bad); }, bad, "C: a dictionary of 65537 values, at most 65536 allowed");
}

TEST_F(csr_malformed_v2, codes_and_dictionary_checked_in_full) {
  const csr_circuit_view_t v(good);
  ASSERT_TRUE(v.a.coded());
  const size_t n_dict = v.a.dict.size();
  auto b = bytes;
  const size_t at = section_offset(b, 2) + 2 * 4;  // A code[4] = the dictionary size (u16 little-endian)
  b[at] = uint8_t(n_dict), b[at + 1] = uint8_t(n_dict >> 8);
  reseal(b, 2);
  expect_bad_indices(b, "A: entry 4 has code " + std::to_string(n_dict) + ", the dictionary has " +
                            std::to_string(n_dict) + " values");
  b = bytes;
  std::memset(b.data() + section_offset(b, 11), 0xff, 32);  // C dict[0] >= r
  reseal(b, 11);
  expect_bad_indices(b, "C: dictionary entry 0 is not below r");
  b = bytes;
  store_u32_le(b.data() + section_offset(b, 5), 68);  // B col[0] = n_vars
  reseal(b, 5);
  expect_bad_indices(b, "B: entry 0 has column 68, the matrix has 68");
  // Without resealing, the checksum catches it first.
  b = bytes;
  b[section_offset(b, 2)] ^= 1;
  const fs::path bad = write(b);
  expect_io_error([&] { read_csr_circuit(bad); }, bad, "section 2 (A code): checksum mismatch");
}

}  // namespace
}  // namespace starzk::test
