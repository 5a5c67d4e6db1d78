// Content digests (io/digest.hpp) and validation records
// (io/validation_record.hpp).
//
// BLAKE2b: the RFC 7693 appendix A value (BLAKE2b-512 of "abc"), and
// BLAKE2b-256 values computed once with Python's hashlib
// (hashlib.blake2b(m, digest_size=32)) for "", "abc", lengths around the
// 128-byte block (the last block is held back until final) and a 3 MiB
// pattern fed in uneven pieces. The file digest tree: values computed once
// with a Python re-implementation of docs/formats.md's tree, with small
// leaves so that a small file has several. Records: the byte form, and
// every way a record can fail to count (the key is then validated again).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>

#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io/digest.hpp"
#include "io/io_error.hpp"
#include "io/validation_record.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

// byte i = (31 i + (i >> 8)) mod 256, the pattern the Python values hash.
std::vector<uint8_t> pattern(size_t n) {
  std::vector<uint8_t> d(n);
  for (size_t i = 0; i < n; ++i) d[i] = uint8_t(i * 31 + (i >> 8));
  return d;
}

std::span<const uint8_t> text(const char* s) { return {reinterpret_cast<const uint8_t*>(s), std::strlen(s)}; }

std::string hex_of(const uint8_t* p, size_t n) {
  digest_t d{};
  std::string s;
  for (size_t i = 0; i < n; i += 32) {
    std::memcpy(d.data(), p + i, std::min<size_t>(32, n - i));
    s += to_hex(d).substr(0, 2 * std::min<size_t>(32, n - i));
  }
  return s;
}

TEST(blake2b, rfc7693_appendix_a) {
  blake2b_t h(64);
  h.update(text("abc"));
  uint8_t out[64];
  h.final(out);
  EXPECT_EQ(hex_of(out, 64),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
            "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
}

TEST(blake2b, blake2b_256_known_answers) {
  EXPECT_EQ(to_hex(blake2b_256(text(""))), "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
  EXPECT_EQ(to_hex(blake2b_256(text("abc"))), "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
  const std::vector<uint8_t> p = pattern(3 * 1048576 + 17);
  const std::span<const uint8_t> all(p);
  EXPECT_EQ(to_hex(blake2b_256(all.first(128))), "21de38dbacffafd405d945fee83b22d833abeca561f5367b5fece93a478dc912");
  EXPECT_EQ(to_hex(blake2b_256(all.first(129))), "f50c922a2b3018f3131015a4adfc7619ed0cc0bf45b0a5d5e296f518f0d2ecab");
  EXPECT_EQ(to_hex(blake2b_256(all.first(255))), "89c9253bf76ef7a08695028ceb6b80d6c51698c749ba01e1fa5e06a484b8bda9");
  EXPECT_EQ(to_hex(blake2b_256(all.first(256))), "1eab4f89d20ce8d6705619d1b110ce70757d32cbd4461df973a79a9ef12c37fd");
  const std::string want = "cb9f22d082536de99c44534a9fdf2408e6306be26590c4f002d7cdf6eaf6fd88";
  EXPECT_EQ(to_hex(blake2b_256(all)), want);
  // The same bytes in uneven pieces (1, 127, 128, 129, ... bytes).
  blake2b_t h(32);
  size_t at = 0;
  for (size_t piece = 1; at < p.size(); piece = piece * 3 + 125) {
    const size_t n = std::min(piece, p.size() - at);
    h.update(p.data() + at, n);
    at += n;
  }
  digest_t d;
  h.final(d.data());
  EXPECT_EQ(to_hex(d), want);
  EXPECT_THROW(blake2b_t(0), std::invalid_argument);
  EXPECT_THROW(blake2b_t(65), std::invalid_argument);
}

TEST(file_digest, tree_known_answers) {
  const std::vector<uint8_t> p = pattern(3 * 1048576 + 17);
  const std::span<const uint8_t> all(p);
  using digest_detail::tree_digest;
  EXPECT_EQ(to_hex(tree_digest(all.first(10000), 1024, 2)),
            "8cab6f5ff026f9809258ce5991cc19bd347e057b68937db39679eaeab73588f5");  // 10 leaves, the last short
  EXPECT_EQ(to_hex(tree_digest(all.first(8192), 1024, 1)),
            "87c87d55d5578034d407b6aac2fe61911d0941f6d028a3a5a550dcc675b8ec47");  // 8 full leaves
  EXPECT_EQ(to_hex(tree_digest(all.first(1), 1024, 2)),
            "b067ba8f14f18e7829b5d79fa0fe30c250a2ff82e351924e10ea321473818b20");
  EXPECT_EQ(to_hex(tree_digest(all.first(0), 1024, 2)),
            "91e1b0ce01d2585eb00ac723153de55a1723e2584981aa7b1e90da3e0571143d");
  EXPECT_EQ(tree_digest(all.first(10000), 1024, 1), tree_digest(all.first(10000), 1024, 2));

  // A file (one 64 MiB leaf) hashes as the tree says.
  scratch_t tmp;
  write_bytes(tmp / "f.bin", p);
  EXPECT_EQ(to_hex(file_digest(tmp / "f.bin", 2)), "0100c8f00adcd0630c2956104e190702f9b5979a41fd21b2c463ff1f77f0428d");
  expect_io_error([&] { file_digest(tmp / "missing.bin"); }, tmp / "missing.bin", "");
}

TEST(file_digest, every_byte_counts) {
  std::vector<uint8_t> p = pattern(5000);
  const digest_t d = digest_detail::tree_digest(p, 1024, 2);
  for (size_t at : {size_t(0), size_t(1023), size_t(1024), size_t(4999)}) {
    p[at] ^= 1;
    EXPECT_NE(digest_detail::tree_digest(p, 1024, 2), d) << at;
    p[at] ^= 1;
  }
  p.push_back(0);  // one more byte: another size
  EXPECT_NE(digest_detail::tree_digest(p, 1024, 2), d);
  p.pop_back();
  EXPECT_NE(digest_detail::tree_digest(p, 512, 2), d);  // the leaf size is part of the digest
}

// ---- validation records -------------------------------------------------------

validation_record_t sample_record() {
  validation_record_t r;
  r.digest = blake2b_256(text("a key"));
  r.file_size = 123456;
  r.format = key_format_t::zkey;
  r.checks = required_checks(key_format_t::zkey);
  r.points = 5000;
  r.validated_at = 1700000000;
  r.sample = 0x0123456789abcdefull;
  return r;
}

TEST(validation_record, byte_form_round_trips) {
  const validation_record_t r = sample_record();
  const std::vector<uint8_t> b = encode_record(r);
  ASSERT_EQ(b.size(), validation_record_size);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "szvr");
  EXPECT_EQ(get_u32(b, 4), 2u);
  EXPECT_EQ(0, std::memcmp(b.data() + 8, r.digest.data(), 32));
  EXPECT_EQ(decode_record(b), r);
  // Every byte is covered by the checksum or is the checksum.
  for (size_t i = 0; i < b.size(); ++i) {
    std::vector<uint8_t> c = b;
    c[i] ^= 0x40;
    std::string why;
    EXPECT_FALSE(decode_record(c, &why)) << i;
    EXPECT_NE(why.find("corrupt record"), std::string::npos) << i << ": " << why;
  }
  std::vector<uint8_t> longer = b;
  longer.push_back(0);
  EXPECT_FALSE(decode_record(longer));
  EXPECT_FALSE(decode_record(std::span<const uint8_t>(b).first(79)));
}

// A record in the 80-byte version 1 form (no sample) is not a hit and says why.
TEST(validation_record, version_one_is_refused_by_name) {
  std::vector<uint8_t> v1 = encode_record(sample_record());
  v1.resize(80);
  v1[4] = 1;
  store_u64_le(v1.data() + 72, xxh64(v1.data(), 72));
  std::string why;
  EXPECT_FALSE(decode_record(v1, &why));
  EXPECT_NE(why.find("version 1"), std::string::npos) << why;
}

// file_sample: equal files agree; a changed byte in a sampled block, one
// byte more, or a small file changed anywhere (hashed whole) disagree.
TEST(validation_record, file_sample_tells_files_apart) {
  scratch_t tmp;
  std::mt19937_64 rng(7);
  std::vector<uint8_t> big(size_t(3) << 20);
  for (auto& x : big) x = uint8_t(rng());
  write_bytes(tmp / "a", big);
  write_bytes(tmp / "b", big);
  EXPECT_EQ(file_sample(tmp / "a"), file_sample(tmp / "b"));
  std::vector<uint8_t> c = big;
  c[c.size() - 1] ^= 1;  // the last block is always sampled
  write_bytes(tmp / "c", c);
  EXPECT_NE(file_sample(tmp / "c"), file_sample(tmp / "a"));
  c = big;
  c[0] ^= 1;
  write_bytes(tmp / "c", c);
  EXPECT_NE(file_sample(tmp / "c"), file_sample(tmp / "a"));
  c = big;
  c.push_back(0);
  write_bytes(tmp / "c", c);
  EXPECT_NE(file_sample(tmp / "c"), file_sample(tmp / "a"));
  std::vector<uint8_t> small(100000, 5);
  write_bytes(tmp / "s", small);
  const uint64_t s0 = file_sample(tmp / "s");
  small[54321] = 6;
  write_bytes(tmp / "s", small);
  EXPECT_NE(file_sample(tmp / "s"), s0);
  EXPECT_THROW(file_sample(tmp / "missing"), io_error);
}

TEST(validation_record, store_finds_only_records_that_count) {
  scratch_t tmp;
  const record_store_t store(tmp / "records" / "deeper");  // created on the first write
  const validation_record_t r = sample_record();
  std::string why;
  EXPECT_FALSE(store.find(r.digest, r.file_size, r.format, &why));
  EXPECT_EQ(why, "no record");
  EXPECT_EQ(store.remember(r), "");
  EXPECT_EQ(store.path_of(r.digest).filename().string(), to_hex(r.digest) + ".rec");
  EXPECT_EQ(store.find(r.digest, r.file_size, r.format), r);

  EXPECT_FALSE(store.find(r.digest, r.file_size + 1, r.format, &why)) << "another size";
  EXPECT_FALSE(store.find(r.digest, r.file_size, key_format_t::params, &why)) << "another format";
  digest_t other = r.digest;
  other[0] ^= 1;
  EXPECT_FALSE(store.find(other, r.file_size, r.format));

  // A record copied under another digest's name names the wrong digest.
  fs::copy_file(store.path_of(r.digest), store.path_of(other));
  EXPECT_FALSE(store.find(other, r.file_size, r.format, &why));
  EXPECT_NE(why.find("another digest"), std::string::npos) << why;

  // A record without the subgroup check does not count.
  validation_record_t weak = r;
  weak.checks = checked_on_curve | checked_matrix_indices;
  EXPECT_EQ(store.remember(weak), "");
  EXPECT_FALSE(store.find(r.digest, r.file_size, r.format, &why));
  EXPECT_NE(why.find("lacks checks"), std::string::npos) << why;

  // Corrupt bytes and a truncated file are ignored, then rewritten.
  EXPECT_EQ(store.remember(r), "");
  std::vector<uint8_t> b = read_bytes(store.path_of(r.digest));
  b[60] ^= 1;
  write_bytes(store.path_of(r.digest), b);
  EXPECT_FALSE(store.find(r.digest, r.file_size, r.format, &why));
  EXPECT_NE(why.find("checksum mismatch"), std::string::npos) << why;
  b.resize(40);
  write_bytes(store.path_of(r.digest), b);
  EXPECT_FALSE(store.find(r.digest, r.file_size, r.format));
  EXPECT_EQ(store.remember(r), "");
  EXPECT_EQ(store.find(r.digest, r.file_size, r.format), r);
}

TEST(validation_record, off_and_unwritable) {
  const record_store_t off;
  EXPECT_FALSE(off.enabled());
  std::string why;
  EXPECT_FALSE(off.find(sample_record().digest, 1, key_format_t::zkey, &why));
  EXPECT_EQ(off.remember(sample_record()), "");  // nothing written, nothing to say

  scratch_t tmp;
  write_text(tmp / "a-file", "x");
  const record_store_t blocked(tmp / "a-file" / "records");  // a file where the folder should be
  const std::string w = blocked.remember(sample_record());
  EXPECT_NE(w, "");
  EXPECT_NE(w.find("a-file"), std::string::npos) << w;
  EXPECT_FALSE(blocked.find(sample_record().digest, sample_record().file_size, key_format_t::zkey));
}

TEST(validation_record, folder_from_the_environment) {
  const char* keep[] = {"STARZK_VALIDATED_KEYS", "XDG_CACHE_HOME", "HOME"};
  std::vector<std::optional<std::string>> saved;
  for (const char* k : keep)
    saved.push_back(std::getenv(k) ? std::optional<std::string>(std::getenv(k)) : std::nullopt);

  ::setenv("STARZK_VALIDATED_KEYS", "/tmp/starzk-records", 1);
  EXPECT_EQ(record_store_t::from_env().dir(), fs::path("/tmp/starzk-records"));
  ::setenv("STARZK_VALIDATED_KEYS", "off", 1);
  EXPECT_FALSE(record_store_t::from_env().enabled());
  ::unsetenv("STARZK_VALIDATED_KEYS");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(record_store_t::from_env().dir(), fs::path("/tmp/xdg/starzk/validated-keys"));
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/tmp/home", 1);
  EXPECT_EQ(record_store_t::from_env().dir(), fs::path("/tmp/home/.cache/starzk/validated-keys"));
  ::unsetenv("HOME");
  EXPECT_FALSE(record_store_t::from_env().enabled());
  EXPECT_NE(record_store_t::from_env().where().find("HOME"), std::string::npos);

  for (size_t i = 0; i < 3; ++i) {
    if (saved[i])
      ::setenv(keep[i], saved[i]->c_str(), 1);
    else
      ::unsetenv(keep[i]);
  }
}

}  // namespace
}  // namespace starzk::test
