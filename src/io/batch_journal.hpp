// The batch journal: which partitions of a job an earlier run finished, so a
// rerun after a kill -9, a scancel or a node failure proves only the rest.
//
// One text file per job (its place is chosen by the batch, cli/
// batch_outputs.hpp), a header line and one line per finished partition:
//
//   starzk-journal 1
//   <partition> <inputs> <proof> <check>
//
// partition: decimal; inputs: 16 hex digits naming what the proof was made
// from (the batch hashes the identity of the key, circuit and witness files
// into it, so a changed input makes the entry stale); proof: the 192-byte
// proof (groth16/proof_bytes.hpp) as 384 hex digits; check: 16 hex digits,
// xxh64 of everything before it on the line.
//
// A line is appended, and fsynced, after the partition's outputs were
// committed; a kill between the two loses the entry, never invents one, and
// costs one proof again. The reader is forgiving where the writer can be
// interrupted and strict about size: a torn or corrupt line (bad check, bad
// hex, a proof that does not decode) is skipped and counted; a file larger
// than `max_entries` lines can hold is refused before it is read; a later
// line for the same partition replaces an earlier one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "groth16/keys.hpp"

namespace starzk {

struct journal_entry_t {
  uint32_t partition = 0;
  uint64_t inputs = 0;
  proof_t proof;
};

struct journal_read_t {
  std::vector<journal_entry_t> entries;  // by partition, each once
  size_t skipped = 0;                    // torn or corrupt lines
};

// A missing file reads as empty. Throws io_error for a file that is not a
// journal (wrong first line), is larger than max_entries lines allow, or
// names a partition >= max_entries.
journal_read_t read_journal(const std::filesystem::path& file, size_t max_entries);

// Replaces the file with exactly these entries (atomic_file_t).
void write_journal(const std::filesystem::path& file, const std::vector<journal_entry_t>& entries);

// Appends entries to a journal that write_journal made; each append is one
// write(2) of whole lines, then fsync.
class journal_appender_t {
 public:
  explicit journal_appender_t(const std::filesystem::path& file);
  ~journal_appender_t();
  journal_appender_t(const journal_appender_t&) = delete;
  journal_appender_t& operator=(const journal_appender_t&) = delete;
  void append(const journal_entry_t& e);

 private:
  std::filesystem::path file_;
  int fd_ = -1;
};

// One line (with its newline), for tests that tear journals.
std::string journal_line(const journal_entry_t& e);

}  // namespace starzk
