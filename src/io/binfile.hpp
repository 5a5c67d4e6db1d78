// The iden3 binary container shared by .r1cs, .wtns, .zkey and .ptau.
//
// Layout (all integers little-endian; iden3 binfileutils):
//   4-byte ASCII magic ("r1cs", "wtns", "zkey", "ptau"), u32 version,
//   u32 number of sections, then each section as u32 id, u64 length and
//   `length` bytes of payload.
// Writers order sections differently (circom puts the constraints before the
// header), so sections are indexed by id, never by position.
//
// bin_file_t maps a whole file read-only and checks the container: magic,
// version range, that every section header and payload lies inside the file
// and that nothing trails the last section. bin_cursor_t reads one section
// with a bound on every read: a short or lying section raises io_error
// ("FILE: section 2 (constraints) truncated ...") instead of reading past
// the end, and count * size products are checked against what is left
// before anything is allocated, so a hostile count cannot exhaust memory.
// bin_writer_t builds a container in memory and saves it atomically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/mapped_file.hpp"

namespace starzk {

// A bounded reader over one section's payload.
class bin_cursor_t {
 public:
  bin_cursor_t(const uint8_t* data, size_t size, const std::filesystem::path* file, std::string what)
      : data_(data), size_(size), file_(file), what_(std::move(what)) {}

  uint32_t u32();
  uint64_t u64();
  // The next n bytes (a view into the mapped file).
  std::span<const uint8_t> bytes(size_t n);
  void skip(size_t n) { bytes(n); }

  size_t offset() const { return pos_; }
  size_t remaining() const { return size_ - pos_; }
  size_t size() const { return size_; }

  // Throws unless count * elem_size bytes remain (overflow-safe): call it
  // before allocating count elements read from the file.
  void need_elements(uint64_t count, uint64_t elem_size, const char* what_elements) const;
  // Throws unless the whole section was consumed (its length lies).
  void expect_end() const;

  [[noreturn]] void fail(const std::string& problem) const;
  const std::filesystem::path& file() const { return *file_; }
  const std::string& what() const { return what_; }

 private:
  void need(size_t n) const;

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  const std::filesystem::path* file_;
  std::string what_;  // e.g. "section 2 (constraints)"
};

struct bin_section_t {
  uint32_t id;
  uint64_t offset;  // of the payload, from the start of the file
  uint64_t size;
};

// A whole container file, mapped read-only (or held in memory for an empty
// file). Movable, not copyable.
class bin_file_t {
 public:
  bin_file_t(const std::filesystem::path& file, std::string_view magic, uint32_t min_version, uint32_t max_version);

  uint32_t version() const { return version_; }
  uint64_t file_size() const { return size_; }
  const std::vector<bin_section_t>& sections() const { return sections_; }
  bool has(uint32_t id) const;

  // The unique section `id`; throws if it is missing or appears twice.
  // `name` is used in messages: "section 2 (constraints) is missing".
  bin_cursor_t section(uint32_t id, const char* name) const;
  std::optional<bin_cursor_t> optional_section(uint32_t id, const char* name) const;

  [[noreturn]] void fail(const std::string& problem) const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  mapped_file_t map_;  // owns the mapping; data_/size_ view it
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint32_t version_ = 0;
  std::vector<bin_section_t> sections_;
};

// Builds a container in memory; save() writes it through atomic_file_t.
class bin_writer_t {
 public:
  bin_writer_t(std::string_view magic, uint32_t version, uint32_t n_sections);

  void begin_section(uint32_t id);
  void end_section();  // patches the length of the open section

  void u32(uint32_t v);
  void u64(uint64_t v);
  void bytes(std::span<const uint8_t> b) { buf_.insert(buf_.end(), b.begin(), b.end()); }
  void zeros(size_t n) { buf_.resize(buf_.size() + n, 0); }
  // Room for n bytes at the end, returned for the caller to fill.
  uint8_t* extend(size_t n);
  void reserve(size_t n) { buf_.reserve(n); }

  const std::vector<uint8_t>& data() const { return buf_; }
  // Checks that exactly n_sections were written and none is open.
  void save(const std::filesystem::path& file) const;

 private:
  std::vector<uint8_t> buf_;
  uint32_t n_sections_;
  uint32_t written_ = 0;
  std::optional<size_t> open_;  // offset of the open section's length field
};

// Little-endian helpers.
inline uint32_t load_u32_le(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t load_u64_le(const uint8_t* p) { return uint64_t(load_u32_le(p)) | uint64_t(load_u32_le(p + 4)) << 32; }
inline void store_u32_le(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void store_u64_le(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

}  // namespace starzk
