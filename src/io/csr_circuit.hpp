// The CSR circuit file (".szcs"): an r1cs_t as it lies in memory, loaded by
// mmap.
//
// A Filecoin PoRep partition's matrices hold 722M terms (25.7 GiB as CSR
// with 32-byte values, ~7 GiB coded); parsing the iden3 .r1cs (one 44-byte
// record per term, standard-form values converted to Montgomery) costs
// minutes, and the circuit is the same for every partition. This file
// stores the CSR arrays exactly as sparse_matrix_t holds them, page-aligned,
// so csr_circuit_view_t can hand them to SpMV (or register them as StarPU
// handles) in place.
//
// Container: page_container.hpp (magic "szcs", header checksum, per-section
// xxh64 block checksums). Metadata (64 bytes, both versions):
//   0   u32 n_vars      4  u32 n_public    8  u32 n_constraints   12 u32 zero
//   16  u64 A.n_rows    24 u64 A.n_cols
//   32  u64 B.n_rows    40 u64 B.n_cols
//   48  u64 C.n_rows    56 u64 C.n_cols
// Every matrix is n_constraints x n_vars. Sections:
//   version 1 (plain values), 3 per matrix: 0-2 A row_ptr (u64, n_rows + 1),
//     col (u32, nnz), val (fr_t, 32 bytes Montgomery, nnz); 3-5 B; 6-8 C.
//   version 2 (coded values, groth16/r1cs.hpp), 4 per matrix: 0-3 A row_ptr
//     (u64, n_rows + 1), col (u32, nnz), code (u16, nnz), dict (fr_t
//     Montgomery, at most 65536; empty only when nnz = 0); 4-7 B; 8-11 C.
//     6 bytes per term instead of 36: a 2^27 Filecoin-shaped circuit takes
//     ~7.7 GB instead of ~30 GB.
// The writer writes version 2 when the circuit is coded (at least one
// matrix coded and none plain with terms), version 1 otherwise (a coded
// matrix among plain ones is expanded for the file). Both are read; the view
// and to_r1cs() keep the form of the file.
//
// Opening checks the header and each matrix's shape (lengths, one value
// form, row_ptr[0] = 0, row_ptr[n_rows] = nnz). check_csr_circuit (and
// validate()) adds the full index validation: row_ptr monotone, every col <
// n_vars, every value or dictionary entry < r, every code < the dictionary
// size. The writer's input is trusted (it came from read_r1cs, which checks
// all of this, or from the generator), so a file made by write_csr_circuit
// passes; a file of unknown origin should be checked once.
#pragma once

#include <filesystem>

#include "groth16/r1cs.hpp"
#include "io/matrix_view.hpp"
#include "io/page_container.hpp"

namespace starzk {

inline constexpr uint32_t csr_circuit_version_plain = 1;
inline constexpr uint32_t csr_circuit_version_coded = 2;

class csr_circuit_view_t {
 public:
  // checksums: also verify every section's checksum (reads the whole file).
  explicit csr_circuit_view_t(const std::filesystem::path& file, bool checksums = false, unsigned threads = 0);

  uint32_t version() const { return c_.version(); }
  uint32_t n_vars = 0, n_public = 0, n_constraints = 0;
  sparse_matrix_view_t a, b, c;  // views into the mapping

  r1cs_t to_r1cs() const;  // copies
  void verify_checksums(unsigned threads = 0) const { c_.verify_checksums(threads); }
  // Full index validation (see the file comment); throws io_error.
  void validate(unsigned threads = 0) const;

  const page_container_t& container() const { return c_; }

 private:
  page_container_t c_;
};

// Version 2 when the circuit is coded, else 1 (see the file comment).
void write_csr_circuit(const std::filesystem::path& file, const r1cs_t& circuit, unsigned threads = 0);
// Checks the header, the checksums and every index, and copies.
r1cs_t read_csr_circuit(const std::filesystem::path& file, unsigned threads = 0);
void check_csr_circuit(const std::filesystem::path& file, unsigned threads = 0);

}  // namespace starzk
