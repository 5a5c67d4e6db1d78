// Atomic file output: a reader never sees a half-written key or proof.
//
// atomic_file_t writes to "PATH.tmp.<pid>.<n>" in the directory of PATH
// (n counts the process's temporaries), and
// commit() flushes it (fsync), renames it over PATH (rename(2) is atomic
// within one file system) and fsyncs the directory so the new name survives
// a crash. If commit() is never reached (an exception, a failed write, a full
// disk) the destructor removes the temporary, so a failed write leaves
// neither PATH (if it did not exist) nor a temporary behind; an existing
// PATH is left untouched. Every writer in src/io goes through this; files
// that must appear together go through output_set_t (output_set.hpp).
//
// A target that exists and is not a regular file (a character device such
// as /dev/null or /dev/stdout, a FIFO, a socket) is written in place: no
// temporary is made beside it, nothing is renamed over it, and it is never
// removed (renaming over /dev/null as root would replace the device with a
// file). Such output is not atomic and cannot be mapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string_view>

namespace starzk {

class atomic_file_t {
 public:
  // Creates the temporary (O_EXCL: a stale one from a crashed process with
  // our pid is replaced first). Throws io_error naming `target`.
  explicit atomic_file_t(const std::filesystem::path& target);
  ~atomic_file_t();
  atomic_file_t(const atomic_file_t&) = delete;
  atomic_file_t& operator=(const atomic_file_t&) = delete;

  // Appends n bytes (retrying short writes and EINTR); throws io_error.
  void write(const void* data, size_t n);
  void write(std::span<const uint8_t> bytes) { write(bytes.data(), bytes.size()); }

  // Gives the temporary exactly `size` bytes, reserved on the disk up front
  // (posix_fallocate: a full disk is an io_error here, never a SIGBUS while
  // the mapping is filled), and maps it for writing. For large outputs made
  // in place from many threads (page_container_writer_t). At most once, and
  // not together with write(). The mapping lives until commit or discard.
  uint8_t* map_writable(uint64_t size);

  // fsync, close, rename onto the target, fsync the directory.
  void commit() {
    finish();
    publish();
  }
  // commit() in two steps, for a set of files made visible together
  // (output_set.hpp): finish() puts the content on disk (fsync, close) and
  // keeps the temporary; publish() renames it onto the target.
  void finish();
  void publish();

  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& temp_path() const { return temp_; }

 private:
  void discard() noexcept;

  std::filesystem::path target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool finished_ = false;   // on disk, temporary closed
  bool committed_ = false;  // renamed onto the target
  bool direct_ = false;     // the target is a device, FIFO or socket, written in place
  void* map_ = nullptr;
  uint64_t map_size_ = 0;
};

// Removes the temporaries "TARGET.tmp.<pid>[.<n>]" that processes which are no
// longer alive left next to `target` (a kill -9 runs no destructor); those of
// live processes (another writer at work) are kept. Returns how many were
// removed. Only names made from `target` are touched, so a run cleans its own
// outputs' leftovers and never another job's temporary in a shared folder.
size_t remove_stale_temporaries(const std::filesystem::path& target);

// Convenience: the whole content at once, or produced by a callback that
// receives the open file (if it throws, nothing is left behind).
void write_file_atomic(const std::filesystem::path& target, std::span<const uint8_t> bytes);
void write_file_atomic(const std::filesystem::path& target, std::string_view text);
void write_file_atomic(const std::filesystem::path& target, const std::function<void(atomic_file_t&)>& produce);

}  // namespace starzk
