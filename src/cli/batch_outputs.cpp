// What a manifest batch writes, and what an earlier run left (batch_outputs.hpp).
#include "cli/batch_outputs.hpp"

#include <optional>
#include <string>

#include "io/batch_journal.hpp"
#include "io/checksum.hpp"
#include "io/digest_memo.hpp"
#include "io/io_error.hpp"
#include "io/output_set.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"

namespace starzk::cli {

namespace {

namespace fs = std::filesystem;

// The identity of the files a partition is proved from: device, inode, size
// and modification time (ns) of each, hashed. Any rewrite of a file changes
// its modification time, so a journal entry made from other content is
// stale.
uint64_t identity_of(std::initializer_list<const fs::path*> files) {
  constexpr int64_t ns = 1'000'000'000;
  std::vector<uint64_t> words;
  for (const fs::path* p : files) {
    const std::optional<file_stamp_t> st = p->empty() ? std::nullopt : file_stamp(*p);
    if (!st) {
      words.insert(words.end(), {0, 0, 0, 0, 0});
      continue;
    }
    // The modification time as seconds and nanoseconds (0 <= ns < 10^9).
    const int64_t sec = st->mtime_ns / ns - (st->mtime_ns % ns < 0);
    words.insert(words.end(), {st->device, st->inode, st->size, uint64_t(sec), uint64_t(st->mtime_ns - sec * ns)});
  }
  return xxh64(words.data(), words.size() * sizeof(uint64_t));
}

std::vector<fs::path> pair_of(const manifest_job_t& j, size_t i) {
  if (j.out_dir.empty()) return {};
  return {j.public_json(i), j.proof_json(i)};  // the proof is the set's mark
}

void make_folder(const fs::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw io_error(dir, "cannot make the output folder: " + (ec ? ec.message() : std::string("not a folder")));
}

}  // namespace

fs::path batch_outputs_t::journal_path(const manifest_job_t& j) {
  if (!j.out_dir.empty()) return j.out_dir / ".starzk-journal";
  fs::path p = j.proofs_bin;
  p += ".journal";
  return p;
}

batch_outputs_t::batch_outputs_t(const manifest_t& m, bool fresh, bool writer) : m_(m), writer_(writer) {
  // 1. No output may be an input or another output.
  std::vector<named_path_t> inputs{{m.file, "the manifest"}}, outputs;
  for (const manifest_job_t& j : m.jobs) {
    const std::string job = " of job " + j.label();
    inputs.push_back({j.key, "the key" + job});
    if (!j.circuit.empty()) inputs.push_back({j.circuit, "the circuit" + job});
    for (size_t i = 0; i < j.witnesses.size(); ++i)
      inputs.push_back({j.witnesses[i], "witness " + std::to_string(i) + job});
  }
  for (const manifest_job_t& j : m.jobs) {
    const std::string job = " of job " + j.label();
    for (size_t i = 0; i < j.witnesses.size(); ++i)
      for (const fs::path& p : pair_of(j, i)) outputs.push_back({p, "output " + p.filename().string() + job});
    if (!j.proofs_bin.empty()) outputs.push_back({j.proofs_bin, "proofs_bin" + job});
    outputs.push_back({journal_path(j), "the journal" + job});
  }
  check_outputs_apart(inputs, outputs);
  // 2 and 3, job by job.
  jobs_.resize(m.jobs.size());
  for (size_t j = 0; j < m.jobs.size(); ++j) prepare_job(j, fresh);
}

batch_outputs_t::~batch_outputs_t() = default;

void batch_outputs_t::prepare_job(size_t jx, bool fresh) {
  const manifest_job_t& j = m_.jobs[jx];
  job_t& jt = jobs_[jx];
  const size_t n = j.witnesses.size();
  const fs::path journal = journal_path(j);
  jt.done.assign(n, std::nullopt);
  for (size_t i = 0; i < n; ++i) jt.inputs.push_back(identity_of({&j.key, &j.circuit, &j.witnesses[i]}));
  if (writer_) {
    remove_stale_temporaries(journal);
    if (!j.proofs_bin.empty()) remove_stale_temporaries(j.proofs_bin);
    for (size_t i = 0; i < n; ++i) {
      const auto pair = pair_of(j, i);
      clean_output_set(pair);
    }
  }

  // What the journal vouches for.
  if (!fresh) {
    journal_read_t r;
    try {
      r = read_journal(journal, n);
    } catch (const io_error& e) {
      notes_.push_back(std::string(e.what()) + "; every partition of job " + j.label() + " is proved again");
    }
    if (r.skipped)
      notes_.push_back(journal.string() + ": " + std::to_string(r.skipped) + " torn or corrupt line(s) skipped");
    for (const journal_entry_t& e : r.entries) {
      if (e.inputs != jt.inputs[e.partition]) continue;  // made from other inputs: stale
      if (!j.out_dir.empty()) {
        try {
          if (read_proof_json(j.proof_json(e.partition)) != e.proof) continue;
          (void)read_public_json(j.public_json(e.partition));
        } catch (const std::exception&) {
          continue;  // missing or damaged output: prove it again
        }
      }
      jt.done[e.partition] = e.proof;
    }
  }
  if (!writer_) return;

  // Everything not vouched for goes now, so nothing stale looks current.
  std::vector<journal_entry_t> keep;
  for (size_t i = 0; i < n; ++i) {
    if (jt.done[i])
      keep.push_back({uint32_t(i), jt.inputs[i], *jt.done[i]});
    else
      remove_output_set(pair_of(j, i));
  }
  if (!j.proofs_bin.empty()) {
    bool current = keep.size() == n;
    if (current) {
      try {
        const std::vector<proof_t> on_disk = read_proofs_bin(j.proofs_bin, n);
        for (size_t i = 0; i < n && current; ++i) current = on_disk[i] == *jt.done[i];
      } catch (const std::exception&) {
        current = false;
      }
    }
    if (!current) remove_output_set(std::vector<fs::path>{j.proofs_bin});
  }
  // The journal, compacted to what is kept, then open for appending; making
  // the folders now finds an unwritable out_dir before any proving.
  make_folder(j.out_dir);
  make_folder(journal.parent_path());
  if (!j.proofs_bin.empty()) make_folder(j.proofs_bin.parent_path());
  write_journal(journal, keep);
  jt.journal = std::make_unique<journal_appender_t>(journal);
}

const proof_t* batch_outputs_t::done(size_t job, size_t i) const {
  const auto& d = jobs_.at(job).done.at(i);
  return d ? &*d : nullptr;
}

size_t batch_outputs_t::done_count(size_t job) const {
  size_t k = 0;
  for (const auto& d : jobs_.at(job).done) k += d.has_value();
  return k;
}

size_t batch_outputs_t::resumed() const {
  size_t k = 0;
  for (size_t j = 0; j < jobs_.size(); ++j) k += done_count(j);
  return k;
}

void batch_outputs_t::write_partition(size_t job, size_t i, const proof_t& proof, std::span<const fr_t> publics) {
  const manifest_job_t& j = m_.jobs.at(job);
  job_t& jt = jobs_.at(job);
  if (!jt.journal) throw io_error(journal_path(j), "internal: outputs written by a process that is not the writer");
  if (!j.out_dir.empty()) {
    make_folder(j.out_dir);
    write_proof_outputs(
        proof_outputs_t{.public_json = j.public_json(i), .proof_bin = {}, .proof_json = j.proof_json(i)}, proof,
        publics);
  }
  jt.journal->append({uint32_t(i), jt.inputs.at(i), proof});
  jt.done.at(i) = proof;
}

void batch_outputs_t::finish_job(size_t job, std::span<const proof_t> proofs) {
  const manifest_job_t& j = m_.jobs.at(job);
  if (j.proofs_bin.empty()) return;
  if (proofs.size() != j.witnesses.size()) throw io_error(j.proofs_bin, "internal: a proof per partition is needed");
  make_folder(j.proofs_bin.parent_path());
  write_proofs_bin(j.proofs_bin, proofs);
}

bool batch_outputs_t::finish_job_if_done(size_t job) {
  const manifest_job_t& j = m_.jobs.at(job);
  std::error_code ec;
  if (j.proofs_bin.empty() || done_count(job) != j.witnesses.size() || fs::exists(j.proofs_bin, ec)) return false;
  std::vector<proof_t> proofs;
  for (const auto& d : jobs_.at(job).done) proofs.push_back(*d);
  finish_job(job, proofs);
  return true;
}

}  // namespace starzk::cli
