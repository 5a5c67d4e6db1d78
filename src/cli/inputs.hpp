// Loading what the subcommands read, with the file named in every error
// (cli/file_errors.hpp: each loader runs its reads through naming()):
// keys (.zkey, .params, a .szkc key cache of either, or a packed .szpk with
// its circuit), circuits (.r1cs or .szcs) and witnesses (.wtns).
//
// Keys are validated once per content. load_key digests the key file
// (io/digest.hpp) and looks for a validation record of that digest
// (io/validation_record.hpp). On a hit the key is read with every point
// checked on its curve (and the format in full) but without the subgroup
// tests; on a miss, or with `revalidate`, it is read the same way and then
// validated (groth16/key_validation.hpp: every point in its subgroup, on the
// CPU cores or a GPU), and a record is written. One stderr line says which
// happened and how long it took. A packed key's points are checked while
// they are decompressed, in the subgroup unless a record says they were.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "groth16/key_validation.hpp"
#include "groth16/keys.hpp"
#include "groth16/r1cs.hpp"
#include "io/validation_record.hpp"

namespace starzk::cli {

struct key_load_options_t {
  bool revalidate = false;                        // validate even when a record says it was done
  setup_device_t device = setup_device_t::auto_;  // where validation runs (auto | cpu | gpu)
  unsigned threads = 0;                           // CPU threads for hashing and validation (0: all)
  const record_store_t* records = nullptr;        // nullptr: record_store_t::from_env()
  bool quiet = false;                             // no stderr line
  std::string circuit_path = {};                  // the circuit's file, named in errors about both ("": none)
  // A packed key given no circuit asks this for it once its points are
  // unpacked (the circuit is read meanwhile, e.g. on another thread: at
  // 2^27 both take tens of seconds); unset: the circuit must be given.
  std::function<const r1cs_t*()> circuit_later = {};
  // For the CPU prover: a key cache's queries, and a .zkey's that a record
  // vouches for, borrowed from the file's mapping instead of copied
  // (mappable_vector_t; not for keys whose memory CUDA may page-lock).
  bool map_points = false;
};

// How the key's points were vouched for.
struct key_check_report_t {
  digest_t digest{};
  double hash_seconds = 0;
  bool digest_recalled = false;                     // the digest came from its memo (io/digest_memo.hpp)
  double read_seconds = 0;                          // the reader, on-curve checks included
  bool read_is_validation = false;                  // .szpk: the points were checked while decompressed
  bool validated = false;                           // checked now (false: a record said they had been)
  key_validation_info_t info;                       // when validated
  bool remembered = false;                          // a record was written
  std::string note;                                 // why no record was used or written, or a warning ("" if none)
  std::string unpack;                               // .szpk: time per query (unpack_stats_t::line), "" otherwise
  std::string line(const std::string& path) const;  // the stderr line, without "starzk: "
};

struct loaded_key_t {
  std::string path;
  proving_key_t pk;
  key_check_report_t check;
};

// Exactly one of zkey / params is non-empty. A .params file that omits the
// points at infinity of its A and B queries (as bellman writes them) needs
// its circuit to place the remaining points on their wires. A key that
// fails validation is an io_error "FILE: <query> point <i>: <why>", and no
// record is written.
loaded_key_t load_key(const std::string& zkey, const std::string& params, const r1cs_t* circuit = nullptr,
                      const key_load_options_t& options = {});

// Remembers a key file made from a validated key (starzk cache's output):
// digests it and writes its record. Returns "" or a warning.
std::string remember_validated(const std::string& path, key_format_t format, uint64_t points,
                               const key_load_options_t& options = {});

// The verifying key alone, from a .zkey, a .params, a key cache, a packed
// key, a snarkjs JSON file or a Filecoin .vk (under --vkey or --params).
verifying_key_t load_verifying_key(const std::string& vkey_json, const std::string& zkey, const std::string& params);
r1cs_t load_circuit(const std::string& path);
// The file starts with a packed key's magic (starzk gen --format compact).
bool is_packed_key(const std::string& path);
// JSON by its first byte after spaces, tabs and line ends: '{' or '['. (A
// .params or .vk starts with a coordinate byte that may be any of
// 0x00-0x1f, so "starts with white space" would mistake them for JSON.)
bool looks_like_json(const std::string& path);
// The witness for a key of n_vars wires; an error about its count names the
// key and the circuit too (key_path, circuit_path; "" when not given).
std::vector<fr_t> load_witness(const std::string& path, uint32_t n_vars, const std::string& key_path = "",
                               const std::string& circuit_path = "");

}  // namespace starzk::cli
