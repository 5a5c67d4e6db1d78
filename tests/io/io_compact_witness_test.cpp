// The compact witness file (.szwt, io/compact_witness.hpp): random
// witnesses of zeros, ones and other values (edge values 2 and r - 1
// among them) at edge sizes (one value, one word, a word and one value,
// several decoding blocks) and thread counts read back equal, through the
// format's reader and through read_witness / read_witness_into, which tell
// the formats apart; a Filecoin-shaped mix is far smaller than its .wtns.
// Files with valid checksums but wrong content (a value marked twice, a
// bit past the end, counts that disagree, a stored 0 or 1, a value not
// below r, a constant wire that is not 1, the wrong count for the key)
// fail with io_error naming the file and the problem.
#include <gtest/gtest.h>

#include <random>

#include "io/binfile.hpp"
#include "io/compact_witness.hpp"
#include "io/page_container.hpp"
#include "io/wtns.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

// n values, value 0 = 1, the rest 0, 1 or other with the given odds.
std::vector<fr_t> random_witness(size_t n, double other, std::mt19937_64& g) {
  std::vector<fr_t> w(n);
  std::uniform_real_distribution<double> u(0, 1);
  const fr_t edges[] = {fr_t::from_u64(2), -fr_t::one(), fr_t::one() + fr_t::one() + fr_t::one()};
  for (size_t i = 0; i < n; ++i) {
    const double x = u(g);
    w[i] = x < other             ? (g() % 8 == 0 ? edges[g() % 3] : fr_t::random(g))
           : x < (1 + other) / 2 ? fr_t::one()
                                 : fr_t::zero();
  }
  w[0] = fr_t::one();
  return w;
}

TEST(compact_witness, round_trips_at_edge_sizes) {
  scratch_t tmp;
  std::mt19937_64 g(std::random_device{}());
  for (const size_t n : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(3) * 65536 + 17}) {
    for (const double other : {0.0, 0.01, 1.0}) {
      const std::vector<fr_t> w = random_witness(n, other, g);
      const fs::path p = tmp / "w.szwt";
      write_compact_witness(p, w, n > 1000 ? 3 : 1);
      EXPECT_TRUE(is_compact_witness(p));
      EXPECT_EQ(read_compact_witness(p, 2), w) << n << " " << other;
      std::vector<fr_t> into(n);
      read_witness_into(p, into);
      EXPECT_EQ(into, w) << n << " " << other;
      EXPECT_EQ(read_witness(p, uint32_t(n)), w);
      EXPECT_EQ(fs::file_size(p), compact_witness_bytes(n, size_t(std::count_if(w.begin(), w.end(), [](const fr_t& v) {
                                                          return !v.is_zero() && !v.is_one();
                                                        }))));
      // The same values as a .wtns read through the same entry points.
      const fs::path q = tmp / "w.wtns";
      write_wtns(q, w);
      EXPECT_FALSE(is_compact_witness(q));
      EXPECT_EQ(read_witness(q, uint32_t(n)), w);
    }
  }
  // A Filecoin-shaped mix (1% other) takes a few percent of the .wtns bytes.
  const std::vector<fr_t> w = random_witness(size_t(1) << 18, 0.01, g);
  write_compact_witness(tmp / "big.szwt", w);
  write_wtns(tmp / "big.wtns", w);
  EXPECT_LT(fs::file_size(tmp / "big.szwt") * 10, fs::file_size(tmp / "big.wtns"));
}

// A .szwt with the given content and valid checksums.
void write_raw(const fs::path& p, uint64_t n, uint64_t n_other, std::vector<uint64_t> ones, std::vector<uint64_t> other,
               const std::vector<fr_t>& values) {
  std::vector<uint8_t> meta(16), bytes(32 * values.size());
  store_u64_le(meta.data(), n);
  store_u64_le(meta.data() + 8, n_other);
  for (size_t i = 0; i < values.size(); ++i) values[i].to_bytes_le(bytes.data() + 32 * i);
  const page_section_data_t sections[3] = {
      {ones.data(), ones.size(), 8}, {other.data(), other.size(), 8}, {bytes.data(), values.size(), 32}};
  write_page_container(p, "szwt", 1, meta, sections, 1);
}

TEST(compact_witness, wrong_content_is_refused_naming_the_file) {
  scratch_t tmp;
  const fs::path p = tmp / "bad.szwt";
  const fr_t five = fr_t::from_u64(5);
  std::vector<fr_t> out(70);
  auto read = [&] { read_compact_witness_into(p, out); };

  write_raw(p, 70, 1, {0b1001, 0}, {0b0100, 0}, {five});  // good: 1, 0, 5, 1, 0...
  read();
  EXPECT_EQ(out[2], five);
  EXPECT_TRUE(out[3].is_one());
  EXPECT_TRUE(out[69].is_zero());
  std::vector<fr_t> short_buf(69);
  expect_io_error([&] { read_compact_witness_into(p, short_buf); }, p, "witness of wrong count: 70 values");

  write_raw(p, 70, 1, {0b1101, 0}, {0b0100, 0}, {five});
  expect_io_error(read, p, "value 2 is marked both 1 and other");
  write_raw(p, 70, 1, {0b1001, uint64_t(1) << 6}, {0b0100, 0}, {five});
  expect_io_error(read, p, "a bit is set past the last value (bit 70 of 70)");
  write_raw(p, 70, 1, {0b1001, 0}, {0b0110, 0}, {five});
  expect_io_error(read, p, "the other bitmap marks 2 values, the metadata says 1");
  write_raw(p, 70, 2, {0b1001, 0}, {0b0100, 0}, {five});
  expect_io_error(read, p, "section 2 (values) holds 1 elements of 32 bytes, the metadata says 2");
  write_raw(p, 70, 1, {0b1001}, {0b0100, 0}, {five});
  expect_io_error(read, p, "section 0 (ones) holds 1 elements");
  write_raw(p, 70, 1, {0b1001, 0}, {0b0100, 0}, {fr_t::one()});
  expect_io_error(read, p, "value 2 is stored as other but is 0 or 1");
  write_raw(p, 70, 1, {0b1000, 0}, {0b0100, 0}, {five});
  expect_io_error(read, p, "value 0 (the constant wire) is not 1");
  write_raw(p, 0, 0, {}, {}, {});
  expect_io_error(read, p, "the witness is empty");

  // A value not below r: r itself, written over a good file's value bytes
  // (the checksums resealed by writing the section through the container).
  std::vector<uint8_t> meta(16), r_bytes(32);
  store_u64_le(meta.data(), 70);
  store_u64_le(meta.data() + 8, 1);
  const uint64_t r_le[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
  for (int i = 0; i < 4; ++i) store_u64_le(r_bytes.data() + 8 * i, r_le[i]);
  const uint64_t ones[2] = {0b1001, 0}, other[2] = {0b0100, 0};
  const page_section_data_t sections[3] = {{ones, 2, 8}, {other, 2, 8}, {r_bytes.data(), 1, 32}};
  write_page_container(p, "szwt", 1, meta, sections, 1);
  expect_io_error(read, p, "value 2 is not below r");

  // Corrupt bytes fail the checksums; a file of another kind says what it is.
  write_raw(p, 70, 1, {0b1001, 0}, {0b0100, 0}, {five});
  {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    f.put(char(0x7f));
  }
  expect_io_error(read, p, "checksum");
  const fs::path none = tmp / "none.szwt";
  expect_io_error([&] { read_witness_into(none, out); }, none, "cannot open");
}

}  // namespace
}  // namespace starzk::test
