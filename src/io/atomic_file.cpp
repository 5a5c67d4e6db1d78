// Atomic output through a temporary and rename(2); see atomic_file.hpp.
#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "io/io_error.hpp"

namespace starzk {

namespace {

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

atomic_file_t::atomic_file_t(const std::filesystem::path& target) : target_(target) {
  if (target.empty()) throw io_error(target, "empty output path");
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw io_error(target_, "is a directory, not a file");
    direct_ = true;  // a device, FIFO or socket: written in place (file comment)
    fd_ = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw io_error(target_, errno_text("cannot open the output"));
    return;
  }
  // "<pid>.<n>": n numbers this process's temporaries, so two threads
  // writing one target never share a temporary.
  static std::atomic<uint64_t> serial{0};
  temp_ = target;
  temp_ += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++);
  ::unlink(temp_.c_str());  // a leftover of an earlier process that had our pid
  // Read-write: a shared writable mapping (map_writable) needs both.
  fd_ = ::open(temp_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) throw io_error(target_, errno_text("cannot create temporary output file"));
}

atomic_file_t::~atomic_file_t() {
  if (!committed_) discard();
}

void atomic_file_t::discard() noexcept {
  if (map_) {
    ::munmap(map_, map_size_);
    map_ = nullptr;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_.empty() && !direct_) ::unlink(temp_.c_str());
}

void atomic_file_t::write(const void* data, size_t n) {
  if (fd_ < 0) throw io_error(target_, "write after the file was closed");
  if (map_) throw io_error(target_, "internal: write() on a mapped output");
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    const ssize_t k = ::write(fd_, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      const std::string msg = errno_text("write failed");
      discard();
      throw io_error(target_, msg);
    }
    p += k;
    n -= size_t(k);
  }
}

uint8_t* atomic_file_t::map_writable(uint64_t size) {
  if (fd_ < 0) throw io_error(target_, "map after the file was closed");
  if (map_) throw io_error(target_, "internal: the output is mapped already");
  if (direct_) throw io_error(target_, "is not a regular file: this output can only be written to a file");
  if (size == 0) return nullptr;
  // posix_fallocate returns the error number instead of setting errno.
  const int e = ::posix_fallocate(fd_, 0, off_t(size));
  if (e != 0) {
    const std::string msg =
        std::string("cannot reserve ") + std::to_string(size) + " bytes for the output: " + std::strerror(e);
    discard();
    throw io_error(target_, msg);
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) {
    const std::string msg = errno_text("mmap of the output failed");
    discard();
    throw io_error(target_, msg);
  }
  map_ = p;
  map_size_ = size;
  return static_cast<uint8_t*>(p);
}

void atomic_file_t::finish() {
  if (finished_) return;
  if (fd_ < 0) throw io_error(target_, "commit after the file was closed");
  if (map_) {
    const int rc = ::msync(map_, map_size_, MS_SYNC);
    const std::string msg = rc != 0 ? errno_text("msync of the output failed") : std::string();
    ::munmap(map_, map_size_);
    map_ = nullptr;
    if (rc != 0) {
      discard();
      throw io_error(target_, msg);
    }
  }
  if (!direct_ && ::fsync(fd_) != 0) {
    const std::string msg = errno_text("fsync failed");
    discard();
    throw io_error(target_, msg);
  }
  if (::close(fd_) != 0) {
    fd_ = -1;
    const std::string msg = errno_text("close failed");
    discard();
    throw io_error(target_, msg);
  }
  fd_ = -1;
  finished_ = true;
}

void atomic_file_t::publish() {
  if (!finished_) throw io_error(target_, "internal: publish() before finish()");
  if (committed_) return;
  if (direct_) {
    committed_ = true;
    return;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0) {
    const std::string msg = errno_text("rename of the temporary onto the output failed");
    discard();
    throw io_error(target_, msg);
  }
  committed_ = true;
  // Make the rename durable; failure here cannot undo it, so it is not fatal.
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

size_t remove_stale_temporaries(const std::filesystem::path& target) {
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  const std::string prefix = target.filename().string() + ".tmp.";
  size_t removed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    // "<pid>" or "<pid>.<n>" (atomic_file_t's names).
    const std::string rest = name.substr(prefix.size());
    const std::string digits = rest.substr(0, rest.find('.'));
    const std::string serial = digits.size() < rest.size() ? rest.substr(digits.size() + 1) : "0";
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos ||
        serial.empty() || serial.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t pid = pid_t(std::stol(digits));
    // kill(pid, 0) probes without signalling: ESRCH means no such process.
    if (pid == ::getpid() || pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    if (::unlink(e.path().c_str()) == 0) ++removed;
  }
  return removed;
}

void write_file_atomic(const std::filesystem::path& target, std::span<const uint8_t> bytes) {
  atomic_file_t f(target);
  f.write(bytes);
  f.commit();
}

void write_file_atomic(const std::filesystem::path& target, std::string_view text) {
  atomic_file_t f(target);
  f.write(text.data(), text.size());
  f.commit();
}

void write_file_atomic(const std::filesystem::path& target, const std::function<void(atomic_file_t&)>& produce) {
  atomic_file_t f(target);
  produce(f);
  f.commit();
}

}  // namespace starzk
