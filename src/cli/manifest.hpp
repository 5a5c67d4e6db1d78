// manifest.hpp: the job manifest `starzk prove --manifest` streams through.
// A manifest lists jobs; a job is one key (and its circuit) and the
// witnesses of its partitions, each partition one proof. TOML (.toml) or
// JSON (.json), the same fields:
//
//   [[job]]
//   name       = "sector-1"              # optional; default "job-<n>"
//   key        = "porep.params"          # .zkey (snarkjs), .params (bellman/Filecoin),
//                                        # .szpk (packed), .szkc (key cache)
//   circuit    = "porep.r1cs"            # .r1cs or .szcs; required with .params and .szpk
//   witnesses  = ["p0.wtns", "p1.wtns"]  # one per partition, in partition order
//   out_dir    = "out/sector-1"          # proof-<i>.json + public-<i>.json (snarkjs form)
//   proofs_bin = "out/sector-1.proofs"   # 192 bytes per partition, concatenated (bellman form)
//
//   {"jobs": [{"name": ..., "key": ..., "witnesses": [...], ...}]}
//
// A job needs at least one of out_dir / proofs_bin. Relative paths are
// relative to the manifest's folder. Every error names the manifest, the
// job and the field.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace starzk::cli {

struct manifest_job_t {
  std::string name;
  std::filesystem::path key;      // .zkey or .params
  std::filesystem::path circuit;  // empty when not given
  std::vector<std::filesystem::path> witnesses;
  std::filesystem::path out_dir;     // empty: no JSON outputs
  std::filesystem::path proofs_bin;  // empty: no binary output
  std::string note;                  // written as a comment above the job (manifest_to_toml)

  bool key_is_params() const;
  // Keys that carry no QAP matrices and are read with their circuit
  // (.params, and the packed .szpk).
  bool key_needs_circuit() const;
  // Output paths of partition i.
  std::filesystem::path proof_json(size_t i) const;
  std::filesystem::path public_json(size_t i) const;
  // The name for messages, quoted, control characters escaped (printable).
  std::string label() const;
};

// s with every control character (and backslash) written as \xNN, so that
// a name or path taken from a manifest cannot send escape sequences to a
// terminal.
std::string printable(std::string_view s);

struct manifest_t {
  std::filesystem::path file;
  std::vector<manifest_job_t> jobs;

  size_t partitions() const;
};

// Reads and validates a manifest (.toml, or .json; other extensions are
// sniffed: '{' starts JSON). Throws io_error naming file, job and field
// (exit status 3).
manifest_t read_manifest(const std::filesystem::path& file);

// Parse from text; `base` resolves relative paths, `origin` names the text in errors.
manifest_t parse_manifest_toml(std::string_view text, const std::filesystem::path& base, const std::string& origin);
manifest_t parse_manifest_json(std::string_view text, const std::filesystem::path& base, const std::string& origin);

// Checks that every input file exists, so a batch fails before it starts
// rather than halfway, and that a .szkc made from a bellman/Filecoin key
// (read from its header: it carries no QAP matrices) has its circuit.
// Throws io_error naming the manifest, the job and the file.
void check_manifest_inputs(const manifest_t& m);

// The manifest as TOML (paths written as given), for `starzk gen`.
std::string manifest_to_toml(const manifest_t& m);

}  // namespace starzk::cli
