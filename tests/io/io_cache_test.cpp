// The resident key cache (szkc) and the xxh64 checksum under the mapped
// formats (the CSR circuit file: io_csr_test.cpp). Round trips of bellman
// keys (development setup), a snarkjs key (fixture .zkey, and one made from
// a coded circuit); zero-copy views (page-aligned spans equal to the key);
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
#include "io/key_cache.hpp"
#include "io/r1cs.hpp"
#include "io/zkey.hpp"
#include "../ec/ec_test_util.hpp"
#include "../msm/msm_test_util.hpp"
#include "io_test_util.hpp"
#include "mapped_test_util.hpp"

namespace starzk::test {
namespace {

// ---- shared inputs -----------------------------------------------------------

const proving_key_t& key(const std::string& name) {
  static std::map<std::string, std::unique_ptr<proving_key_t>> cache;
  auto& slot = cache[name];
  if (!slot) {
    if (name == "snarkjs")
      slot = std::make_unique<proving_key_t>(read_zkey(fixture("multiplier", "circuit.zkey")));
    else if (name == "snarkjs-coded")  // .zkey matrices coded (setup from the coded circuit read_r1cs gives)
      slot = std::make_unique<proving_key_t>(
          setup(read_r1cs(fixture("multiplier", "circuit.r1cs")), root_convention_t::snarkjs));
    else if (name == "holey")
      slot = std::make_unique<proving_key_t>(setup(holey_circuit(), root_convention_t::bellman));
    else
      slot =
          std::make_unique<proving_key_t>(setup(read_r1cs(fixture(name, "circuit.r1cs")), root_convention_t::bellman));
  }
  return *slot;
}

// ---- checksum ----------------------------------------------------------------

TEST(checksum, xxh64_reference_values) {
  // Published XXH64 values (seed 0).
  EXPECT_EQ(xxh64("", 0), 0xEF46DB3751D8E999ull);
  const char* s = "Nobody inspects the spammish repetition";  // 39 bytes: stripes and every tail step
  EXPECT_EQ(xxh64(s, std::strlen(s)), 0xFBCEA83C8A378BF1ull);
}

// Found by tests/fuzz (UndefinedBehaviorSanitizer): the tail loop compared
// p + 8 <= end, moving a pointer past the end of its buffer, and off a null
// one for an empty section. Every tail length of a buffer that ends where
// its allocation ends, and the empty input from a null pointer; under the
// sanitizers (scripts/fuzz.sh builds with them) the old loop fails here.
TEST(checksum, every_tail_length_and_the_empty_input) {
  EXPECT_EQ(xxh64(nullptr, 0), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(block_checksum({}), xxh64(nullptr, 0));
  const char* s = "Nobody inspects the spammish repetition";
  for (size_t n = 0; n <= 39; ++n) {
    std::vector<uint8_t> exact(s, s + n);  // n bytes, nothing after them
    EXPECT_EQ(xxh64(exact.data(), n), xxh64(s, n)) << n;
  }
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
  for (const void* p :
       {(const void*)v.ic.data(), (const void*)v.h.data(), (const void*)v.a.data(), (const void*)v.b_g2.data()}) {
    EXPECT_TRUE(page_aligned(p));
  }
  // The spans point into the mapping (no copy).
  const auto& f = v.container().file();
  EXPECT_EQ(reinterpret_cast<const uint8_t*>(v.h.data()), f.data() + v.container().section(1).offset);
}

// map_points: the queries are the mapping itself, and stay readable after
// the file is gone (the mapping lives with the key); a write to a borrowed
// query copies it first, so neither the file nor another copy of the key
// sees it.
TEST_P(key_cache_roundtrip, mapped_queries) {
  const proving_key_t& k = key(GetParam());
  const fs::path file = tmp / "mapped.szkc";
  write_key_cache(file, k);
  const key_cache_view_t v(file);
  EXPECT_FALSE(read_key_cache(file, cache_check_t::header, 1).h.borrowed());
  proving_key_t m = read_key_cache(file, cache_check_t::header, 1, true);
  fs::remove(file);
  EXPECT_EQ(m, k);
  for (bool borrowed : {m.a.borrowed(), m.b_g1.borrowed(), m.b_g2.borrowed(), m.l.borrowed(), m.h.borrowed()})
    EXPECT_TRUE(borrowed);
  const proving_key_t shared = m;  // a copy shares the view
  EXPECT_EQ(shared.h.data(), std::as_const(m).h.data());
  const g1_affine_t first = std::as_const(m).h[0];
  const g1_affine_t g = g1_affine_t::generator();
  m.h[0] = first == g ? -g : g;
  EXPECT_FALSE(m.h.borrowed());
  EXPECT_TRUE(shared.h.borrowed());
  EXPECT_EQ(shared.h[0], first);
  EXPECT_EQ(v.h[0], first);
  EXPECT_NE(m.h[0], first);
  EXPECT_TRUE(std::equal(m.h.begin() + 1, m.h.end(), k.h.begin() + 1));
}

INSTANTIATE_TEST_SUITE_P(keys, key_cache_roundtrip,
                         ::testing::Values("multiplier", "holey", "snarkjs", "snarkjs-coded"));

// Coded .zkey matrices are stored expanded (key_cache.hpp): the file is the
// one the plain key gives, byte for byte, and reads back plain.
TEST(key_cache_coded, stored_plain) {
  scratch_t tmp;
  const proving_key_t& coded = key("snarkjs-coded");
  ASSERT_TRUE(coded.zkey_a.coded() && coded.zkey_b.coded());
  proving_key_t plain = coded;
  expand_matrix(plain.zkey_a);
  expand_matrix(plain.zkey_b);
  write_key_cache(tmp / "c.szkc", coded);
  write_key_cache(tmp / "p.szkc", plain);
  EXPECT_EQ(read_bytes(tmp / "c.szkc"), read_bytes(tmp / "p.szkc"));
  const proving_key_t back = read_key_cache(tmp / "c.szkc", cache_check_t::full, 1);
  EXPECT_FALSE(back.zkey_a.coded());
  EXPECT_EQ(back.zkey_a.val, plain.zkey_a.val);
  EXPECT_TRUE(back == coded);
}

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

// A section long enough for the batched subgroup test (2048 points or
// more, msm/batch_membership.hpp): a good one passes the full check, and
// one point outside the subgroup by its 3-part alone (P + T, T = (0, 2))
// is named, with a point off the subgroup after it.
TEST(key_cache_large, the_full_check_names_a_bad_point_of_a_long_section) {
  scratch_t tmp;
  proving_key_t k = key("multiplier");
  const size_t h_less = k.domain_size - k.h.size();  // 1 in bellman's convention, 0 in snarkjs's
  k.domain_size = 4096;
  const std::vector<g1_affine_t> h = random_bases<g1_params>(rng(), k.domain_size - h_less);
  k.h.assign(h.begin(), h.end());
  const fs::path good = tmp / "large.szkc";
  write_key_cache(good, k);
  EXPECT_NO_THROW(check_key_cache(good));
  const g1_affine_t t{fp_t::zero(), fp_t::from_u64(2)};
  k.h[3000] = g1_jacobian_t::from_affine(k.h[3000]).add_mixed(t).to_affine();
  k.h[3500] = random_curve_point<g1_params>();
  const fs::path bad = tmp / "large-bad.szkc";
  write_key_cache(bad, k);
  EXPECT_NO_THROW(read_key_cache(bad, cache_check_t::checksums));
  expect_io_error([&] { check_key_cache(bad); }, bad, "section 1 (h) point 3000 is not in the prime-order subgroup");
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

}  // namespace
}  // namespace starzk::test
