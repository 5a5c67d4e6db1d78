// Writing a generated job to disk, for `starzk gen` and for benchmarks that
// want files: one circuit, witnesses, and (optionally) a development key,
// all through src/io's validating, atomic writers.
//
// Two file sets:
//   iden3    DIR/circuit.r1cs, witness-<i>.wtns, key.zkey / key.params:
//            what snarkjs and bellman read too (for small circuits: a 2^26
//            .zkey is 48 GB);
//   compact  DIR/circuit.szcs (dictionary-coded CSR, io/csr_circuit.hpp),
//            witness-<i>.szwt (bitmaps of the zeros and ones,
//            io/compact_witness.hpp), key.szpk (compressed points, A and B
//            without their points at infinity, io/packed_key.hpp): a 2^27
//            job (circuit ~8 GB, key ~31 GB, witnesses ~0.1 GB each) fits a
//            64 GiB disk. The key is streamed from the setup into the file
//            (groth16/setup.hpp setup_to), never held in memory.
// With key_cache the key is DIR/key.szkc instead, a resident key cache
// (io/key_cache.hpp) that loads with no decoding.
// Witnesses may repeat across partitions: `distinct` files are written
// (partition i proves witness i mod distinct); every one satisfies the
// circuit. DIR is created if missing. Peak memory: the circuit, one witness,
// and the setup's scalars.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gen/filecoin_shape.hpp"
#include "groth16/setup.hpp"

namespace starzk {

enum class gen_format_t { iden3, compact };

// "iden3" | "compact" | "auto" (compact from k >= 24, where the iden3 files
// pass ~10 GB) -> the format; anything else: std::invalid_argument.
gen_format_t parse_gen_format(const std::string& s, unsigned log2_domain);

// Called after each file is written (for progress output); may be empty.
using gen_progress_fn = std::function<void(const std::filesystem::path& written)>;

struct gen_job_options_t {
  uint32_t partitions = 1;
  uint32_t distinct = 0;  // witness files; 0: as many as fit the disk (at most partitions)
  gen_format_t format = gen_format_t::iden3;
  bool key = true;
  // The key as a resident key cache, DIR/key.szkc (io/key_cache.hpp), in
  // place of the format's key file: cheap to load again and again (what
  // `starzk bench` reads).
  bool key_cache = false;
  root_convention_t convention = root_convention_t::snarkjs;
  setup_options_t setup;  // device, threads, info
  unsigned threads = 0;
  gen_progress_fn progress;
};

struct gen_job_files_t {
  std::filesystem::path circuit, key;            // the key's name even when none is written
  std::vector<std::filesystem::path> witnesses;  // one per partition (names repeat when distinct < partitions)
  uint32_t distinct = 0;
};

// Generates the circuit, the witnesses and the key and writes them. Before
// writing anything, checks that the files fit the free space of DIR's file
// system (io_error naming DIR and the sizes otherwise).
gen_job_files_t write_generated_job(const gen_params_t& params, const std::filesystem::path& dir,
                                    const gen_job_options_t& options);

// The circuit and `partitions` witnesses in iden3 form (tests, benchmarks).
void write_generated(const gen_params_t& params, const std::filesystem::path& dir, uint32_t partitions,
                     unsigned threads = 0, const gen_progress_fn& progress = {});

// "witness-<i>.wtns" (iden3) or "witness-<i>.szwt" (compact,
// io/compact_witness.hpp): the name of the i-th witness file.
std::string generated_witness_name(uint64_t partition, gen_format_t format = gen_format_t::iden3);

// A packed key file (.szpk) as a setup sink (groth16/setup.hpp setup_to):
// the file is laid out once the setup describes the key, the points are
// compressed into place as they come, and commit() writes the header.
class packed_key_writer_t;
class packed_key_sink_t final : public key_sink_t {
 public:
  packed_key_sink_t(std::filesystem::path file, unsigned threads);
  ~packed_key_sink_t() override;
  void begin(const key_layout_t& layout) override;
  void put(key_query_t q, uint64_t first, std::span<const g1_affine_t> pts) override;
  void put(key_query_t q, uint64_t first, std::span<const g2_affine_t> pts) override;
  void commit();

 private:
  std::filesystem::path file_;
  unsigned threads_;
  std::unique_ptr<packed_key_writer_t> w_;
};

// A development key for `cs` streamed into a packed key file (.szpk).
void write_packed_dev_key(const r1cs_t& cs, root_convention_t convention, const setup_options_t& options,
                          const std::filesystem::path& file, unsigned threads = 0);

}  // namespace starzk
