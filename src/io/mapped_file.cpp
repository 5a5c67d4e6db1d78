// Read-only whole-file mappings (mapped_file.hpp).
#include "io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "io/io_error.hpp"

namespace starzk {

mapped_file_t::mapped_file_t(const std::filesystem::path& file) : path_(file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_error(file, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw io_error(file, "not a regular file");
  }
  size_ = size_t(st.st_size);
  if (size_ > 0) {
    map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map_ == MAP_FAILED) {
      map_ = nullptr;
      const int e = errno;
      ::close(fd);
      throw io_error(file, std::string("cannot map ") + std::to_string(size_) + " bytes: " + std::strerror(e));
    }
    data_ = static_cast<const uint8_t*>(map_);
  }
  ::close(fd);  // the mapping keeps the file alive
}

mapped_file_t::~mapped_file_t() { release(); }

mapped_file_t::mapped_file_t(mapped_file_t&& o) noexcept
    : path_(std::move(o.path_)),
      data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      map_(std::exchange(o.map_, nullptr)) {}

mapped_file_t& mapped_file_t::operator=(mapped_file_t&& o) noexcept {
  if (this != &o) {
    release();
    path_ = std::move(o.path_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    map_ = std::exchange(o.map_, nullptr);
  }
  return *this;
}

void mapped_file_t::release() noexcept {
  if (map_) ::munmap(map_, size_);
  map_ = nullptr;
  data_ = nullptr;
  size_ = 0;
}

void mapped_file_t::advise_sequential() const {
  if (map_) (void)::madvise(map_, size_, MADV_SEQUENTIAL);
}

void mapped_file_t::advise_willneed(size_t offset, size_t length) const {
  if (!map_ || offset >= size_) return;
  // madvise wants a page-aligned start.
  const size_t page = page_size();
  const size_t start = offset & ~(page - 1);
  const size_t end = std::min(size_, offset + length);
  (void)::madvise(static_cast<uint8_t*>(map_) + start, end - start, MADV_WILLNEED);
}

bool read_ahead_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED) == 0;
  ::close(fd);
  return ok;
}

size_t page_size() {
  static const size_t p = [] {
    const long v = ::sysconf(_SC_PAGESIZE);
    return v > 0 ? size_t(v) : size_t(4096);
  }();
  return p;
}

}  // namespace starzk
