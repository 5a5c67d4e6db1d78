// Remembered key digests (io/digest_memo.hpp): the memo's byte form and
// its refusals; a digest hashed once and then recalled from the file's
// stamp; a file written again in place (its mtime even set back) hashed
// again; a file changed within the racy window never remembered; a corrupt
// memo, a memo for another stamp and remembering off.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "io/binfile.hpp"
#include "io/checksum.hpp"
#include "io/digest_memo.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

std::vector<uint8_t> bytes_of(size_t n, uint8_t salt) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(i * 131 + salt + (i >> 9));
  return b;
}

digest_memo_t sample_memo() {
  digest_memo_t m;
  m.stamp = {0x801, 123456789, 5 << 20, 1'700'000'000'123'456'789, 1'700'000'001'987'654'321};
  m.taken_ns = 1'700'000'100'000'000'000;
  for (size_t i = 0; i < m.digest.size(); ++i) m.digest[i] = uint8_t(7 * i + 1);
  return m;
}

TEST(digest_memo, byte_form_round_trips_and_refusals_are_named) {
  const digest_memo_t m = sample_memo();
  const std::vector<uint8_t> b = encode_memo(m);
  ASSERT_EQ(b.size(), digest_memo_size);
  EXPECT_EQ(std::string(b.begin(), b.begin() + 4), "szdm");
  EXPECT_EQ(decode_memo(b), m);
  std::string why;
  std::vector<uint8_t> c = b;
  c.push_back(0);
  EXPECT_FALSE(decode_memo(c, &why));
  EXPECT_NE(why.find("97 bytes"), std::string::npos) << why;
  c = b;
  c[0] = 'x';
  EXPECT_FALSE(decode_memo(c, &why));
  EXPECT_NE(why.find("magic"), std::string::npos) << why;
  c = b;
  c[60] ^= 1;
  EXPECT_FALSE(decode_memo(c, &why));
  EXPECT_NE(why.find("checksum"), std::string::npos) << why;
  c = b;
  store_u32_le(c.data() + 4, 2);
  store_u64_le(c.data() + 88, xxh64(c.data(), 88));
  EXPECT_FALSE(decode_memo(c, &why));
  EXPECT_NE(why.find("version 2"), std::string::npos) << why;
}

TEST(digest_memo, hashed_once_then_recalled_until_the_file_is_written) {
  scratch_t tmp;
  const record_store_t store(tmp / "records");
  const fs::path key = tmp / "key.bin";
  write_bytes(key, bytes_of(3 << 20, 1));
  const digest_t want = file_digest(key);

  const key_digest_t first = key_digest(store, key, 0, true, 0);
  EXPECT_FALSE(first.recalled);
  EXPECT_EQ(first.digest, want);
  EXPECT_EQ(first.note, "");
  const auto stamp = file_stamp(key);
  ASSERT_TRUE(stamp);
  EXPECT_TRUE(fs::exists(memo_path(store, *stamp)));
  EXPECT_EQ(memo_path(store, *stamp).parent_path(), tmp / "records" / "digests");

  const key_digest_t second = key_digest(store, key, 0, true, 0);
  EXPECT_TRUE(second.recalled);
  EXPECT_EQ(second.digest, want);
  EXPECT_FALSE(key_digest(store, key, 0, false, 0).recalled);  // recall off: hashed

  // Written in place, same size, the old mtime put back: ctime moved.
  const auto mtime = fs::last_write_time(key);
  {
    std::fstream f(key, std::ios::in | std::ios::out | std::ios::binary);
    const std::vector<uint8_t> other = bytes_of(3 << 20, 2);
    f.write(reinterpret_cast<const char*>(other.data()), std::streamsize(other.size()));
  }
  fs::last_write_time(key, mtime);
  const digest_t now = file_digest(key);
  ASSERT_NE(now, want);
  const key_digest_t third = key_digest(store, key, 0, true, 0);
  EXPECT_FALSE(third.recalled);
  EXPECT_EQ(third.digest, now);
  EXPECT_NE(third.note.find("another stamp"), std::string::npos) << third.note;
  EXPECT_TRUE(key_digest(store, key, 0, true, 0).recalled);  // the new memo
}

TEST(digest_memo, a_file_changed_within_the_racy_window_is_not_remembered) {
  scratch_t tmp;
  const record_store_t store(tmp / "records");
  const fs::path key = tmp / "fresh.bin";
  write_bytes(key, bytes_of(1 << 16, 3));
  const key_digest_t d = key_digest(store, key);  // the real window: the file is a moment old
  EXPECT_FALSE(d.recalled);
  EXPECT_EQ(d.digest, file_digest(key));
  EXPECT_NE(d.note.find("too recently"), std::string::npos) << d.note;
  EXPECT_FALSE(fs::exists(memo_path(store, *file_stamp(key))));
  EXPECT_FALSE(key_digest(store, key).recalled);
}

TEST(digest_memo, corrupt_or_foreign_memos_and_remembering_off_are_misses) {
  scratch_t tmp;
  const record_store_t store(tmp / "records");
  const fs::path key = tmp / "key.bin";
  write_bytes(key, bytes_of(1 << 20, 4));
  const digest_t want = file_digest(key);
  ASSERT_FALSE(key_digest(store, key, 0, true, 0).recalled);
  const fs::path memo = memo_path(store, *file_stamp(key));

  std::vector<uint8_t> b = read_bytes(memo);
  b[70] ^= 1;
  write_bytes(memo, b);
  key_digest_t d = key_digest(store, key, 0, true, 0);
  EXPECT_FALSE(d.recalled);
  EXPECT_EQ(d.digest, want);
  EXPECT_NE(d.note.find("checksum"), std::string::npos) << d.note;
  EXPECT_TRUE(key_digest(store, key, 0, true, 0).recalled);  // rewritten

  // An intact memo for another stamp (another size) at this file's place.
  digest_memo_t foreign = *decode_memo(read_bytes(memo));
  foreign.stamp.size += 1;
  foreign.digest[0] ^= 1;
  write_bytes(memo, encode_memo(foreign));
  d = key_digest(store, key, 0, true, 0);
  EXPECT_FALSE(d.recalled);
  EXPECT_EQ(d.digest, want);

  const record_store_t off;
  d = key_digest(off, key, 0, true, 0);
  EXPECT_FALSE(d.recalled);
  EXPECT_EQ(d.digest, want);
  EXPECT_EQ(d.note, "");
  EXPECT_THROW(key_digest(store, tmp / "missing.bin", 0, true, 0), std::exception);
}

}  // namespace
}  // namespace starzk::test
