// batch_outputs.hpp: everything a manifest batch writes, in one place, for
// both batch paths (cmd_batch.cpp, mpi_run.cpp). Constructed before any
// proving, it
//   1. refuses outputs that would overwrite an input or each other
//      (check_outputs_apart: the manifest, keys, circuits, witnesses
//      against every proof, public input, proofs_bin and journal file);
//   2. makes the outputs on disk consistent: stale temporaries of dead
//      processes and incomplete output sets go (output_set.hpp);
//   3. resumes: each job's journal (io/batch_journal.hpp) says which
//      partitions an earlier run finished; an entry counts only if the
//      inputs it was made from are unchanged (same key, circuit and witness
//      files: device, inode, size and modification time) and, for a job with
//      out_dir, its proof-<i>.json is there and holds the journalled proof.
//      Those partitions are not proved again. Every other previous output of
//      the job (proof and public files of unfinished partitions, a proofs_bin
//      not made from exactly the finished set) is removed now, so nothing
//      left over looks current if this run fails. With `fresh` every
//      previous output and journal entry goes.
// Then write_partition commits one partition's output set and journals it;
// finish_job writes the job's proofs_bin once every partition has a proof.
//
// The journal of a job lives in its out_dir (".starzk-journal"), or beside
// its proofs_bin ("<proofs_bin>.journal") when it has no out_dir.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/manifest.hpp"
#include "groth16/keys.hpp"

namespace starzk {
class journal_appender_t;
}

namespace starzk::cli {

class batch_outputs_t {
 public:
  // writer: this process writes (false on MPI ranks other than 0, which
  // only learn what is done). Throws (io_error) before anything is removed
  // when outputs alias inputs.
  batch_outputs_t(const manifest_t& m, bool fresh, bool writer = true);
  ~batch_outputs_t();

  // Partition i of job j was finished by an earlier run: its proof.
  const proof_t* done(size_t job, size_t i) const;
  size_t done_count(size_t job) const;
  size_t resumed() const;  // partitions found done, all jobs
  // Warnings met while reading journals (torn lines, unreadable journals).
  const std::vector<std::string>& notes() const { return notes_; }

  // Commits partition i's output set (public, then proof JSON) and appends
  // it to the job's journal; throws io_error.
  void write_partition(size_t job, size_t i, const proof_t& proof, std::span<const fr_t> publics);
  // Writes the job's proofs_bin from every partition's proof (given for the
  // ones proved now, from the journal for the others); throws io_error.
  void finish_job(size_t job, std::span<const proof_t> proofs);
  // Writes the job's proofs_bin from the proofs done() holds (journalled
  // and written by this run) when every partition is done and the file is
  // not there: a job finished by an earlier run whose .bin is missing, or
  // one whose last partitions came now. A current .bin (checked at
  // construction) is kept. Returns whether it wrote; throws io_error.
  bool finish_job_if_done(size_t job);

  static std::filesystem::path journal_path(const manifest_job_t& j);

 private:
  struct job_t {
    std::vector<uint64_t> inputs;              // per partition: identity of its input files
    std::vector<std::optional<proof_t>> done;  // per partition, from the journal
    std::unique_ptr<journal_appender_t> journal;
  };
  void prepare_job(size_t j, bool fresh);

  const manifest_t& m_;
  bool writer_;
  std::vector<job_t> jobs_;
  std::vector<std::string> notes_;
};

}  // namespace starzk::cli
