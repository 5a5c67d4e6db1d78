// Remembered key digests: a key file's content digest (io/digest.hpp)
// recalled from its file status instead of hashed again.
//
// A warm start hashes the whole key only to find its validation record
// (io/validation_record.hpp): tens of ms at 2^16 on two cores, seconds at
// sector scale. After a hash, a memo beside the records keeps the digest
// with the file's stamp: device, inode, size, and the modification and
// status-change times to the nanosecond. A later load whose stamp is the
// same takes the digest from the memo. Writing a file in place changes
// its ctime, which no user call can set back, so a changed key misses.
//
// Racy stamps: file times come from a clock coarser than their
// nanoseconds (a kernel tick; seconds on some filesystems), so a file
// written again within the tick of its last change keeps its stamp. A
// memo is therefore written only when the stamp taken before the hash is
// older than the moment of that stat by more than racy_window_ns, and the
// stamp after the hash equals the one before: a key still being written
// (or copied a moment ago) is hashed every time until it has been quiet for
// the window.
//
// Where: <record folder>/digests/<16 hex digits: xxh64 of device and
// inode>.szdm, one per file; remembering off (STARZK_VALIDATED_KEYS=off)
// turns memos off too. A memo (docs/formats.md, "Digest memo"), 96 bytes,
// little-endian:
//   0   4   magic "szdm"
//   4   4   u32 version (1)
//   8   8   u64 device        16  8  u64 inode       24  8  u64 size
//   32  8   i64 mtime (ns)    40  8  i64 ctime (ns)  48  8  i64 stat taken (ns)
//   56  32  the digest
//   88  8   u64 xxh64 of bytes 0..87 (io/checksum.hpp)
// A memo that is missing, unreadable, corrupt or for another stamp is a
// miss: the key is hashed and the memo rewritten (atomically).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/digest.hpp"
#include "io/validation_record.hpp"

namespace starzk {

inline constexpr int64_t racy_window_ns = int64_t(2'000'000'000);
inline constexpr size_t digest_memo_size = 96;

struct file_stamp_t {
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const file_stamp_t&) const = default;
};

// The file's stamp (stat), or std::nullopt when it cannot be had.
std::optional<file_stamp_t> file_stamp(const std::filesystem::path& file);

struct digest_memo_t {
  file_stamp_t stamp;
  int64_t taken_ns = 0;  // when the stamp was taken (the realtime clock)
  digest_t digest{};
  bool operator==(const digest_memo_t&) const = default;
};

std::vector<uint8_t> encode_memo(const digest_memo_t& m);
// std::nullopt for bytes that are not an intact memo (*why says why).
std::optional<digest_memo_t> decode_memo(std::span<const uint8_t> bytes, std::string* why = nullptr);

// Where the memo of a file with this stamp lives in the store's folder.
std::filesystem::path memo_path(const record_store_t& store, const file_stamp_t& stamp);

// How key_digest came by the digest.
struct key_digest_t {
  digest_t digest{};
  bool recalled = false;  // from a memo, not hashed
  std::string note;       // why no memo was used or written, or a warning ("" if none)
};

// The file's content digest: from its memo when one matches its stamp
// (and `recall` is set), otherwise hashed (file_digest, `threads`), then
// remembered when the stamp allows (above; `racy_ns` is the window, other
// than racy_window_ns only in tests). Throws what file_digest throws; a
// memo that cannot be read or written is a note, never a failure.
key_digest_t key_digest(const record_store_t& store, const std::filesystem::path& file, unsigned threads = 0,
                        bool recall = true, int64_t racy_ns = racy_window_ns);

}  // namespace starzk
