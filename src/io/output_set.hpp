// A set of output files that become visible together or not at all: a proof
// and its public inputs (proof_files.hpp), and any other group whose members
// are only meaningful side by side.
//
// rename(2) replaces one name atomically, never two, so a set cannot appear
// in one step under several names. The design instead makes the LAST member
// of the set its commit mark, and orders every step around it:
//   1. stage: every member is written to its own temporary (atomic_file_t)
//      and put on disk (fsync), while the old set is untouched;
//   2. lock: an exclusive flock on each target folder (in a fixed order, so
//      two writers of sets in the same folders serialize and cannot deadlock);
//   3. retire: every old member is removed, the mark first, so from here on
//      no old and new member can ever be read as one set;
//   4. publish: each temporary is renamed onto its target, the mark last;
//      then the folders are fsynced and unlocked.
// A kill at any moment therefore leaves the old set (before 3), the new set
// (after 4), or an incomplete set without its mark (during 3-4). The rule
// for readers is: a set is there when its mark is; clean_output_set removes
// the members of a set whose mark is missing, and the temporaries of dead
// processes, and every run calls it before it starts.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/atomic_file.hpp"

namespace starzk {

class output_set_t {
 public:
  // Members in commit order; the last one is the mark. Temporaries are
  // created at once (io_error naming the member that cannot be created).
  explicit output_set_t(std::vector<std::filesystem::path> members);
  ~output_set_t();  // an uncommitted set leaves no temporary
  output_set_t(const output_set_t&) = delete;
  output_set_t& operator=(const output_set_t&) = delete;

  size_t size() const { return files_.size(); }
  atomic_file_t& file(size_t i) { return *files_.at(i); }
  void write(size_t i, std::span<const uint8_t> bytes) { files_.at(i)->write(bytes); }
  void write(size_t i, std::string_view text) { files_.at(i)->write(text.data(), text.size()); }

  // Steps 1-4 above; throws io_error naming the member that failed. After a
  // failure in step 3 or 4 the set is incomplete (its mark is missing).
  void commit();

 private:
  std::vector<std::unique_ptr<atomic_file_t>> files_;
};

// Before a run writes the set `members` (commit order, mark last): removes
// the stale temporaries of every member (remove_stale_temporaries) and, when
// the mark is missing, the members that are there (an interrupted commit).
// Returns how many files were removed.
size_t clean_output_set(std::span<const std::filesystem::path> members);

// Removes every member, the mark first (previous results that must not look
// current once a new run for them has started). Returns how many existed.
size_t remove_output_set(std::span<const std::filesystem::path> members);

// A file a run reads or writes, with what it is for messages ("the key",
// "witness 3 of job 'a'").
struct named_path_t {
  std::filesystem::path path;
  std::string what;
};

// Refuses, before any work, a run whose outputs would overwrite one of its
// inputs or each other: two paths are one file when they resolve to the same
// canonical path (symlinks, "..", relative and absolute spellings) or, both
// existing, to the same inode (hard links). Throws io_error naming the output.
void check_outputs_apart(std::span<const named_path_t> inputs, std::span<const named_path_t> outputs);

}  // namespace starzk
