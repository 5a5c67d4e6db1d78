// A whole file mapped read-only: the one way src/io looks at big inputs.
//
// The .params reader streams a 47 GiB Filecoin key through the mapping
// (no read buffer, the page cache does the work), and the key cache and CSR
// circuit files are used in place: their sections are page-aligned in the
// file, and mmap returns a page-aligned base, so a section's bytes can be
// handed out as a typed span without copying. The mapping lives as long as
// the mapped_file_t (movable, not copyable). An empty file maps to an empty
// span (mmap refuses length 0). Failures to open, stat or map, and anything
// that is not a regular file, are io_error naming the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>

namespace starzk {

// Asks the kernel to read the whole of `file` into the page cache
// (posix_fadvise WILLNEED): a later read or mapping finds it there instead
// of waiting for the disk. The call may take as long as queuing the reads;
// false when the file cannot be opened or the kernel refuses (a hint: the
// real read reports the error).
bool read_ahead_file(const std::filesystem::path& file);

class mapped_file_t {
 public:
  mapped_file_t() = default;
  explicit mapped_file_t(const std::filesystem::path& file);
  ~mapped_file_t();
  mapped_file_t(mapped_file_t&& o) noexcept;
  mapped_file_t& operator=(mapped_file_t&& o) noexcept;
  mapped_file_t(const mapped_file_t&) = delete;
  mapped_file_t& operator=(const mapped_file_t&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }

  // Hints for the kernel (madvise); failures are ignored, they are hints.
  void advise_sequential() const;
  void advise_willneed(size_t offset, size_t length) const;

 private:
  void release() noexcept;

  std::filesystem::path path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;
};

// The system page size (sysconf), used to align the sections we write.
size_t page_size();

// n rounded up to a multiple of `align` (a power of two).
inline uint64_t align_up(uint64_t n, uint64_t align) { return (n + align - 1) & ~(align - 1); }

}  // namespace starzk
