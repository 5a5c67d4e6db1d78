// The page-aligned container shared by starzk's own mapped formats: the
// resident key cache ("szkc"), the CSR circuit file ("szcs") and the
// compact witness ("szwt").
//
// Both exist so that loading is an mmap and a pointer cast: every section is
// an array of fixed-size elements exactly as they lie in memory (Montgomery
// limbs, u64 row pointers, u32 columns), starting on a 4096-byte boundary
// of the file, so that it starts on a page of the mapping too. Layout (all
// integers little-endian; these formats are for little-endian hosts only):
//
//   offset  size   field
//   0       4      magic (ASCII, e.g. "szkc")
//   4       4      u32 version
//   8       4      u32 byte-order mark 0x01020304 (bytes 04 03 02 01)
//   12      4      u32 n_sections
//   16      8      u64 file_size (the whole file, checked against the real size)
//   24      8      u64 alignment of the sections (4096)
//   32      8      u64 meta_size (a multiple of 8)
//   40      meta   format-specific metadata (see key_cache.hpp, csr_circuit.hpp)
//   40+meta 32·n   section table: per section u64 offset, u64 count,
//                  u64 elem_size, u64 checksum (block_checksum of its bytes)
//   ...     8      u64 header checksum: xxh64 of every header byte before it
//   then the sections, each at a multiple of the alignment, zero padding
//   between them, and nothing after the last non-empty one.
//
// page_container_t validates the whole header when it opens a file (magic,
// version (a format may accept several, each with its own metadata size and
// sections: page_layout_t), byte order, header checksum, sizes against the real file size,
// alignment, every section inside the file, in order, not overlapping) and
// hands out typed spans; the section checksums cost a full read, so they
// are checked only on request (verify_checksums, in parallel).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/mapped_file.hpp"

namespace starzk {

inline constexpr uint64_t page_container_alignment = 4096;
inline constexpr uint32_t page_container_bom = 0x01020304;

struct page_section_t {
  uint64_t offset = 0;
  uint64_t count = 0;
  uint64_t elem_size = 0;
  uint64_t checksum = 0;
  uint64_t bytes() const { return count * elem_size; }
};

// What a writer puts in one section.
struct page_section_data_t {
  const void* data;
  uint64_t count;
  uint64_t elem_size;
};

template <class T>
page_section_data_t section_of(std::span<const T> v) {
  return {v.data(), v.size(), sizeof(T)};
}

// A container made in place: the section sizes are fixed first, the file is
// reserved on the disk and mapped, callers fill each section through a
// writable span (from any threads, disjoint ranges), and commit() computes
// the section checksums, writes the header and renames the file into place
// (io/atomic_file.hpp: nothing is left behind if commit is never reached).
// What sector-scale writers use: a 30 GB key is never held in memory twice.
class page_container_writer_t {
 public:
  // `sections`: count and elem_size of each (offset and checksum ignored).
  page_container_writer_t(const std::filesystem::path& file, std::string_view magic, uint32_t version,
                          uint64_t meta_size, std::span<const page_section_t> sections);

  template <class T>
  std::span<T> section(size_t i) {
    check_elem_size(i, sizeof(T));
    const page_section_t& s = table_[i];
    if (s.count == 0) return {};
    return {reinterpret_cast<T*>(base_ + s.offset), size_t(s.count)};
  }
  // Section i as raw bytes.
  std::span<uint8_t> bytes(size_t i) {
    const page_section_t& s = table_.at(i);
    return s.count ? std::span<uint8_t>(base_ + s.offset, size_t(s.bytes())) : std::span<uint8_t>();
  }
  // The metadata bytes, filled before commit.
  std::span<uint8_t> meta() { return {base_ + 40, size_t(meta_size_)}; }
  const std::filesystem::path& path() const { return out_.target(); }

  void commit(unsigned threads = 0);

 private:
  void check_elem_size(size_t i, size_t want) const;

  atomic_file_t out_;
  std::string magic_;
  uint32_t version_;
  uint64_t meta_size_;
  std::vector<page_section_t> table_;
  uint64_t size_ = 0;
  uint8_t* base_ = nullptr;
};

// Writes the container atomically (io/atomic_file.hpp); checksums are
// computed with `threads` threads.
void write_page_container(const std::filesystem::path& file, std::string_view magic, uint32_t version,
                          std::span<const uint8_t> meta, std::span<const page_section_data_t> sections,
                          unsigned threads = 0);

// What one version of a format holds: its metadata size and its sections
// (their names are used in messages).
struct page_layout_t {
  uint32_t version = 0;
  uint64_t meta_size = 0;
  std::vector<std::string> section_names;
};

class page_container_t {
 public:
  // Opens and validates the header. `section_names` (one per expected
  // section) are used in messages; `meta_size` is what the format expects.
  page_container_t(const std::filesystem::path& file, std::string_view magic, uint32_t version, uint64_t meta_size,
                   std::vector<std::string> section_names);
  // The same for a format readable in several versions: the file's version
  // picks its layout.
  page_container_t(const std::filesystem::path& file, std::string_view magic, std::span<const page_layout_t> layouts);

  uint32_t version() const { return version_; }
  std::span<const uint8_t> meta() const { return meta_; }
  const page_section_t& section(size_t i) const { return sections_[i]; }
  size_t n_sections() const { return sections_.size(); }
  const std::string& name(size_t i) const { return names_[i]; }

  // Section i as T elements; throws unless its elem_size is sizeof(T).
  template <class T>
  std::span<const T> span(size_t i) const {
    check_elem_size(i, sizeof(T));
    const page_section_t& s = sections_[i];
    if (s.count == 0) return {};
    return {reinterpret_cast<const T*>(file_.data() + s.offset), size_t(s.count)};
  }

  // Section i as raw bytes (any element size).
  std::span<const uint8_t> bytes(size_t i) const {
    const page_section_t& s = sections_[i];
    return s.count ? std::span<const uint8_t>(file_.data() + s.offset, size_t(s.bytes())) : std::span<const uint8_t>();
  }

  // Throws io_error naming the first section whose bytes do not match its
  // checksum.
  void verify_checksums(unsigned threads = 0) const;

  [[noreturn]] void fail(const std::string& problem) const;
  const std::filesystem::path& path() const { return file_.path(); }
  const mapped_file_t& file() const { return file_; }

 private:
  void check_elem_size(size_t i, size_t want) const;

  void open(std::string_view magic, std::span<const page_layout_t> layouts);

  mapped_file_t file_;
  uint32_t version_ = 0;
  std::span<const uint8_t> meta_;
  std::vector<page_section_t> sections_;
  std::vector<std::string> names_;
};

}  // namespace starzk
