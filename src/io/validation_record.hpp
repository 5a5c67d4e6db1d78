// Records of keys that passed validation, one small file per key digest.
//
// Checking every point of a key for subgroup membership costs minutes to
// hours of CPU for a large key; hashing it costs seconds. So once a key has
// passed (groth16/key_validation.hpp), the CLI writes a record named after
// the key's content digest (io/digest.hpp), and a later load of the same
// bytes finds the record and skips the subgroup checks. A changed key has
// another digest and is validated again.
//
// Where: $STARZK_VALIDATED_KEYS if set, else
// ${XDG_CACHE_HOME:-$HOME/.cache}/starzk/validated-keys/. The value "off"
// turns remembering off: every load validates, nothing is written. The
// folder is created on the first write; a folder that cannot be created or
// written is a warning for the caller to print, never a failure.
//
// A record (docs/formats.md, "Validation record"), 88 bytes, little-endian:
//   0   4   magic "szvr"
//   4   4   u32 version (2)
//   8   32  the key's file digest
//   40  8   u64 the key's size in bytes
//   48  4   u32 key format (1 .zkey, 2 .params, 3 .szkc, 4 .szpk)
//   52  4   u32 checks done (record_check bits below)
//   56  8   u64 points checked
//   64  8   u64 when (seconds since 1970, UTC; informational)
//   72  8   u64 the key's sample (file_sample below)
//   80  8   u64 xxh64 of bytes 0..79 (io/checksum.hpp)
// A version 1 record (80 bytes, no sample) is not a hit: the key is
// validated once more and its record rewritten in version 2.
// File name: the digest in lower-case hex, then ".rec". A record that is
// missing, unreadable, of another size, corrupt (magic, version, checksum),
// for another digest or file size, for another format, or that lacks a check
// the format needs, is not a hit: the key is validated again and the
// record rewritten (atomically, io/atomic_file.hpp). A record vouches for
// bytes: like every reader, the CLI assumes a key file does not change
// while it is being hashed and read.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/digest.hpp"

namespace starzk {

enum class key_format_t : uint32_t { zkey = 1, params = 2, key_cache = 3, packed = 4 };

// What a validation checked (bits of validation_record_t::checks).
enum record_check : uint32_t {
  checked_on_curve = 1,        // coordinates canonical, on the curve, O only where allowed
  checked_subgroup = 2,        // in the order-r subgroup
  checked_matrix_indices = 4,  // the key's matrix indices in range (.zkey, .szkc; .szpk takes
                               // its matrices from the circuit, whose reader checks them)
};

// The checks a record must name to count for a key of this format.
uint32_t required_checks(key_format_t format);

inline constexpr size_t validation_record_size = 88;

// A fingerprint of a file that costs a few reads instead of a pass:
// XXH64 over the size and 64 blocks of 4 KiB at evenly spaced offsets (the
// first at 0, the last ending at the end; the whole file when it is
// smaller). Two keys of the same size from different set-ups differ in
// nearly every block, so the sample tells them apart before the digest is
// known; it vouches for nothing (the digest does). Throws io_error naming
// the file when it cannot be read.
uint64_t file_sample(const std::filesystem::path& file);

struct validation_record_t {
  digest_t digest{};
  uint64_t file_size = 0;
  key_format_t format = key_format_t::zkey;
  uint32_t checks = 0;
  uint64_t points = 0;
  uint64_t validated_at = 0;  // seconds since 1970
  uint64_t sample = 0;        // file_sample of the key

  bool operator==(const validation_record_t&) const = default;
};

std::vector<uint8_t> encode_record(const validation_record_t& r);
// std::nullopt for bytes that are not an intact record (*why says why).
std::optional<validation_record_t> decode_record(std::span<const uint8_t> bytes, std::string* why = nullptr);

class record_store_t {
 public:
  // Remembering off.
  record_store_t() = default;
  explicit record_store_t(std::filesystem::path dir) : dir_(std::move(dir)), enabled_(true) {}

  // From STARZK_VALIDATED_KEYS, XDG_CACHE_HOME and HOME (see above); with
  // none of them set, remembering is off and where() says so.
  static record_store_t from_env();

  bool enabled() const { return enabled_; }
  const std::filesystem::path& dir() const { return dir_; }
  // For messages: the folder, or "off: " and why remembering is off.
  std::string where() const;
  // Why remembering is off ("STARZK_VALIDATED_KEYS=off", ...).
  const std::string& off_reason() const { return off_reason_; }
  std::filesystem::path path_of(const digest_t& d) const;

  // The record of a key with this digest, size and format, when there is
  // one that counts (see the file comment); otherwise std::nullopt, and
  // *why (if given) says why ("no record", "corrupt record: ...").
  std::optional<validation_record_t> find(const digest_t& d, uint64_t file_size, key_format_t format,
                                          std::string* why = nullptr) const;

  // Whether some record that counts names a key of this size, format and
  // sample: a hint, read before the digest is known (a later load of a key
  // finds one; a first load finds none, also when another key of the same
  // size was validated before, unless their samples collide). Reads at
  // most `limit` records. False when remembering is off. Never throws.
  bool may_hold(uint64_t file_size, key_format_t format, uint64_t sample, size_t limit = 4096) const;

  // Writes the record (creating the folder); returns "" or, when it could
  // not be written, a warning naming the path. Never throws.
  std::string remember(const validation_record_t& r) const;

 private:
  std::filesystem::path dir_;
  bool enabled_ = false;
  std::string off_reason_ = "STARZK_VALIDATED_KEYS=off";
};

}  // namespace starzk
