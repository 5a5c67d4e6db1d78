// The CSR circuit file (".szcs"): an r1cs_t as it lies in memory, loaded by
// mmap.
//
// A Filecoin PoRep partition's matrices hold 722M terms (25.7 GiB as CSR);
// parsing the iden3 .r1cs (one 44-byte record per term, standard-form
// values converted to Montgomery) costs minutes, and the circuit is the same
// for every partition. This file stores the CSR arrays exactly as
// sparse_matrix_t holds them, page-aligned, so csr_circuit_view_t can hand
// them to SpMV (or register them as StarPU handles) in place.
//
// Container: page_container.hpp (magic "szcs", version 1, header checksum,
// per-section xxh64 block checksums). Metadata (64 bytes):
//   0   u32 n_vars      4  u32 n_public    8  u32 n_constraints   12 u32 zero
//   16  u64 A.n_rows    24 u64 A.n_cols
//   32  u64 B.n_rows    40 u64 B.n_cols
//   48  u64 C.n_rows    56 u64 C.n_cols
// Sections: 0-2 A row_ptr (u64, n_rows + 1), col (u32, nnz), val (fr_t,
// 32 bytes Montgomery); 3-5 B; 6-8 C. Every matrix is n_constraints x
// n_vars.
//
// Opening checks the header and each matrix's shape (lengths, row_ptr[0] =
// 0, row_ptr[n_rows] = nnz). check_csr_circuit (and validate()) adds the
// full index validation: row_ptr monotone, every col < n_vars, every value
// < r. The writer's input is trusted (it came from read_r1cs, which checks
// all of this), so a file made by write_csr_circuit passes; a file of
// unknown origin should be checked once.
#pragma once

#include <filesystem>

#include "groth16/r1cs.hpp"
#include "io/matrix_view.hpp"
#include "io/page_container.hpp"

namespace starzk {

inline constexpr uint32_t csr_circuit_version = 1;

class csr_circuit_view_t {
 public:
  // checksums: also verify every section's checksum (reads the whole file).
  explicit csr_circuit_view_t(const std::filesystem::path& file, bool checksums = false, unsigned threads = 0);

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

void write_csr_circuit(const std::filesystem::path& file, const r1cs_t& circuit, unsigned threads = 0);
// Checks the header, the checksums and every index, and copies.
r1cs_t read_csr_circuit(const std::filesystem::path& file, unsigned threads = 0);
void check_csr_circuit(const std::filesystem::path& file, unsigned threads = 0);

}  // namespace starzk
