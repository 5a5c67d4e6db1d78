// The CSR circuit file: writer, zero-copy view, validation (csr_circuit.hpp).
#include "io/csr_circuit.hpp"

#include "io/binfile.hpp"
#include "io/io_error.hpp"

namespace starzk {

namespace {

constexpr uint64_t meta_size = 64;
const char* const matrix_names[3] = {"A", "B", "C"};

// The sections of one matrix in each version, in file order.
std::vector<const char*> parts(uint32_t version) {
  if (version == csr_circuit_version_plain) return {" row_ptr", " col", " val"};
  return {" row_ptr", " col", " code", " dict"};
}

page_layout_t layout(uint32_t version) {
  page_layout_t l{version, meta_size, {}};
  for (const char* m : matrix_names)
    for (const char* part : parts(version)) l.section_names.push_back(std::string(m) + part);
  return l;
}

// Version 2 when at least one matrix is coded and none is plain with terms.
bool write_coded(const r1cs_t& r) {
  bool any = false;
  for (const sparse_matrix_t* m : {&r.a, &r.b, &r.c}) {
    if (m->coded())
      any = true;
    else if (m->nnz() != 0)
      return false;
  }
  return any;
}

}  // namespace

csr_circuit_view_t::csr_circuit_view_t(const std::filesystem::path& file, bool checksums, unsigned threads)
    : c_(file, "szcs",
         std::vector<page_layout_t>{layout(csr_circuit_version_plain), layout(csr_circuit_version_coded)}) {
  const uint8_t* m = c_.meta().data();
  n_vars = load_u32_le(m);
  n_public = load_u32_le(m + 4);
  n_constraints = load_u32_le(m + 8);
  if (uint64_t(n_public) + 1 > n_vars) c_.fail("n_public + 1 exceeds n_vars");
  const bool coded = c_.version() == csr_circuit_version_coded;
  const size_t per = coded ? 4 : 3;
  sparse_matrix_view_t* mats[3] = {&a, &b, &c};
  for (size_t i = 0; i < 3; ++i) {
    sparse_matrix_view_t& x = *mats[i];
    x.n_rows = load_u64_le(m + 16 + 16 * i);
    x.n_cols = load_u64_le(m + 24 + 16 * i);
    if (x.n_rows != n_constraints || x.n_cols != n_vars) {
      c_.fail(std::string(matrix_names[i]) + " is " + std::to_string(x.n_rows) + " x " + std::to_string(x.n_cols) +
              ", expected n_constraints x n_vars = " + std::to_string(n_constraints) + " x " + std::to_string(n_vars));
    }
    x.row_ptr = c_.span<uint64_t>(per * i);
    x.col = c_.span<uint32_t>(per * i + 1);
    if (coded) {
      x.code = c_.span<uint16_t>(per * i + 2);
      x.dict = c_.span<fr_t>(per * i + 3);
    } else {
      x.val = c_.span<fr_t>(per * i + 2);
    }
    if (std::string s = check_matrix_shape(x, matrix_names[i]); !s.empty()) c_.fail(s);
  }
  if (checksums) c_.verify_checksums(threads);
}

void csr_circuit_view_t::validate(unsigned threads) const {
  const sparse_matrix_view_t* mats[3] = {&a, &b, &c};
  for (size_t i = 0; i < 3; ++i) {
    if (std::string s = check_matrix_indices(*mats[i], matrix_names[i], threads); !s.empty()) c_.fail(s);
  }
}

r1cs_t csr_circuit_view_t::to_r1cs() const {
  r1cs_t r;
  r.n_vars = n_vars;
  r.n_public = n_public;
  r.n_constraints = n_constraints;
  r.a = a.to_matrix();
  r.b = b.to_matrix();
  r.c = c.to_matrix();
  return r;
}

void write_csr_circuit(const std::filesystem::path& file, const r1cs_t& r, unsigned threads) {
  const sparse_matrix_t* mats[3] = {&r.a, &r.b, &r.c};
  for (size_t i = 0; i < 3; ++i) {
    const sparse_matrix_t& x = *mats[i];
    if (x.n_rows != r.n_constraints || x.n_cols != r.n_vars) {
      throw io_error(
          file, std::string("cannot write the CSR circuit: ") + matrix_names[i] + " is not n_constraints x n_vars");
    }
    if (std::string s = check_matrix_shape(sparse_matrix_view_t::of(x), matrix_names[i]); !s.empty()) {
      throw io_error(file, "cannot write the CSR circuit: " + s);
    }
  }
  if (uint64_t(r.n_public) + 1 > r.n_vars)
    throw io_error(file, "cannot write the CSR circuit: n_public + 1 exceeds n_vars");
  std::vector<uint8_t> meta(meta_size, 0);
  store_u32_le(meta.data(), r.n_vars);
  store_u32_le(meta.data() + 4, r.n_public);
  store_u32_le(meta.data() + 8, r.n_constraints);
  const bool coded = write_coded(r);
  std::vector<fr_t> expanded[3];  // version 1 of a coded matrix: its values, expanded for the file
  std::vector<page_section_data_t> sections;
  for (size_t i = 0; i < 3; ++i) {
    const sparse_matrix_t& x = *mats[i];
    store_u64_le(meta.data() + 16 + 16 * i, x.n_rows);
    store_u64_le(meta.data() + 24 + 16 * i, x.n_cols);
    sections.push_back(section_of<uint64_t>(x.row_ptr));
    sections.push_back(section_of<uint32_t>(x.col));
    if (coded) {
      sections.push_back(section_of<uint16_t>(x.code));
      sections.push_back(section_of<fr_t>(x.dict));
    } else {
      sections.push_back(section_of<fr_t>(plain_values(x, expanded[i], threads)));
    }
  }
  write_page_container(file, "szcs", coded ? csr_circuit_version_coded : csr_circuit_version_plain, meta, sections,
                       threads);
}

r1cs_t read_csr_circuit(const std::filesystem::path& file, unsigned threads) {
  const csr_circuit_view_t v(file, true, threads);
  v.validate(threads);
  return v.to_r1cs();
}

void check_csr_circuit(const std::filesystem::path& file, unsigned threads) {
  const csr_circuit_view_t v(file, true, threads);
  v.validate(threads);
}

}  // namespace starzk
