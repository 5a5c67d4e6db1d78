// Remembered key digests (digest_memo.hpp): the file stamp, the 96-byte
// memo, and the recall-or-hash rule with its racy-stamp test.
#include "io/digest_memo.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "io/atomic_file.hpp"
#include "io/binfile.hpp"
#include "io/checksum.hpp"

namespace starzk {

namespace {

constexpr char magic[4] = {'s', 'z', 'd', 'm'};
constexpr uint32_t version = 1;
constexpr size_t checksum_at = 88;

int64_t realtime_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<file_stamp_t> file_stamp(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  file_stamp_t s;
  s.device = uint64_t(st.st_dev);
  s.inode = uint64_t(st.st_ino);
  s.size = uint64_t(st.st_size);
  s.mtime_ns = int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  s.ctime_ns = int64_t(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  return s;
}

std::vector<uint8_t> encode_memo(const digest_memo_t& m) {
  std::vector<uint8_t> b(digest_memo_size, 0);
  std::memcpy(b.data(), magic, 4);
  store_u32_le(b.data() + 4, version);
  store_u64_le(b.data() + 8, m.stamp.device);
  store_u64_le(b.data() + 16, m.stamp.inode);
  store_u64_le(b.data() + 24, m.stamp.size);
  store_u64_le(b.data() + 32, uint64_t(m.stamp.mtime_ns));
  store_u64_le(b.data() + 40, uint64_t(m.stamp.ctime_ns));
  store_u64_le(b.data() + 48, uint64_t(m.taken_ns));
  std::memcpy(b.data() + 56, m.digest.data(), 32);
  store_u64_le(b.data() + checksum_at, xxh64(b.data(), checksum_at));
  return b;
}

std::optional<digest_memo_t> decode_memo(std::span<const uint8_t> b, std::string* why) {
  auto no = [&](const std::string& w) -> std::optional<digest_memo_t> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (b.size() != digest_memo_size)
    return no("corrupt digest memo: " + std::to_string(b.size()) + " bytes, expected " +
              std::to_string(digest_memo_size));
  if (std::memcmp(b.data(), magic, 4) != 0) return no("corrupt digest memo: bad magic");
  if (load_u64_le(b.data() + checksum_at) != xxh64(b.data(), checksum_at))
    return no("corrupt digest memo: checksum mismatch");
  if (load_u32_le(b.data() + 4) != version)
    return no("digest memo version " + std::to_string(load_u32_le(b.data() + 4)) + " (this starzk reads version 1)");
  digest_memo_t m;
  m.stamp.device = load_u64_le(b.data() + 8);
  m.stamp.inode = load_u64_le(b.data() + 16);
  m.stamp.size = load_u64_le(b.data() + 24);
  m.stamp.mtime_ns = int64_t(load_u64_le(b.data() + 32));
  m.stamp.ctime_ns = int64_t(load_u64_le(b.data() + 40));
  m.taken_ns = int64_t(load_u64_le(b.data() + 48));
  std::memcpy(m.digest.data(), b.data() + 56, 32);
  return m;
}

std::filesystem::path memo_path(const record_store_t& store, const file_stamp_t& stamp) {
  uint8_t id[16];
  store_u64_le(id, stamp.device);
  store_u64_le(id + 8, stamp.inode);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.szdm", static_cast<unsigned long long>(xxh64(id, sizeof id)));
  return store.dir() / "digests" / name;
}

key_digest_t key_digest(const record_store_t& store, const std::filesystem::path& file, unsigned threads, bool recall,
                        int64_t racy_ns) {
  key_digest_t out;
  const int64_t taken = realtime_ns();
  const std::optional<file_stamp_t> before = store.enabled() ? file_stamp(file) : std::nullopt;
  if (before && recall) {
    std::ifstream f(memo_path(store, *before), std::ios::binary);
    if (f) {
      std::vector<uint8_t> b(digest_memo_size + 1);  // one more: a longer file is corrupt
      f.read(reinterpret_cast<char*>(b.data()), std::streamsize(b.size()));
      b.resize(size_t(f.gcount()));
      if (const auto m = decode_memo(b, &out.note)) {
        if (m->stamp == *before) {
          out.digest = m->digest;
          out.recalled = true;
          out.note.clear();
          return out;
        }
        out.note = "the digest memo is for another stamp";
      }
    }
  }
  out.digest = file_digest(file, threads);
  if (!before) return out;  // remembering off, or no stat: nothing to remember
  // Quiet for the racy window before the stat, and unchanged by the hash.
  const int64_t last_change = std::max(before->mtime_ns, before->ctime_ns);
  if (taken - last_change <= racy_ns) {
    out.note = "changed too recently for its digest to be remembered";
    return out;
  }
  const std::optional<file_stamp_t> after = file_stamp(file);
  if (!after || !(*after == *before)) {
    out.note = "changed while it was hashed";
    return out;
  }
  try {
    const std::filesystem::path p = memo_path(store, *before);
    std::error_code ec;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) {
      out.note = p.parent_path().string() + ": cannot create the folder for digest memos: " + ec.message();
      return out;
    }
    const std::vector<uint8_t> bytes = encode_memo(digest_memo_t{*before, taken, out.digest});
    write_file_atomic(p, std::span<const uint8_t>(bytes));
  } catch (const std::exception& e) {
    out.note = std::string("cannot write a digest memo: ") + e.what();
  }
  return out;
}

}  // namespace starzk
