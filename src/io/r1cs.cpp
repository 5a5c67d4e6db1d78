// .r1cs reader and writer (see r1cs.hpp for the format).
#include "io/r1cs.hpp"

#include <string>

#include "io/binfile.hpp"
#include "io/iden3_codec.hpp"
#include "io/io_error.hpp"
#include "io/matrix_view.hpp"

namespace starzk {

namespace {

constexpr uint32_t section_header = 1;
constexpr uint32_t section_constraints = 2;
constexpr uint32_t section_labels = 3;
constexpr uint32_t section_custom_gates_list = 4;
constexpr uint32_t section_custom_gates_uses = 5;
constexpr const char* matrix_names[3] = {"A", "B", "C"};

void check_matrix(const std::filesystem::path& file, const sparse_matrix_t& m, const char* name, uint64_t rows,
                  uint64_t cols) {
  auto fail = [&](const std::string& p) { throw io_error(file, std::string("matrix ") + name + ": " + p); };
  if (m.n_rows != rows || m.n_cols != cols) {
    fail("shape " + std::to_string(m.n_rows) + "x" + std::to_string(m.n_cols) + ", expected " + std::to_string(rows) +
         "x" + std::to_string(cols));
  }
  if (m.row_ptr.size() != rows + 1 || m.row_ptr.front() != 0 || m.row_ptr.back() != m.col.size() ||
      !check_matrix_shape(sparse_matrix_view_t::of(m), name).empty()) {
    fail("inconsistent CSR arrays");
  }
  for (uint64_t i = 0; i < rows; ++i) {
    if (m.row_ptr[i] > m.row_ptr[i + 1]) fail("row_ptr decreases at row " + std::to_string(i));
  }
  for (uint64_t k = 0; k < m.col.size(); ++k) {
    if (m.col[k] >= cols) fail("column " + std::to_string(m.col[k]) + " out of range");
  }
}

}  // namespace

void check_r1cs_shape(const std::filesystem::path& file, const r1cs_t& r) {
  if (r.n_vars < 1 || uint64_t(r.n_public) + 1 > r.n_vars) {
    throw io_error(
        file, "n_public = " + std::to_string(r.n_public) + " does not fit in n_vars = " + std::to_string(r.n_vars));
  }
  check_matrix(file, r.a, "A", r.n_constraints, r.n_vars);
  check_matrix(file, r.b, "B", r.n_constraints, r.n_vars);
  check_matrix(file, r.c, "C", r.n_constraints, r.n_vars);
}

r1cs_t read_r1cs(const std::filesystem::path& file) {
  bin_file_t f(file, "r1cs", 1, 1);

  // ---- header ----
  auto h = f.section(section_header, "header");
  iden3::read_prime(h, iden3::prime_t::r);
  const uint32_t n_wires = h.u32();
  const uint32_t n_outputs = h.u32();
  const uint32_t n_pub_inputs = h.u32();
  const uint32_t n_prv_inputs = h.u32();
  const uint64_t n_labels = h.u64();
  const uint32_t n_constraints = h.u32();
  h.expect_end();
  const uint64_t n_named = 1ull + n_outputs + n_pub_inputs + n_prv_inputs;
  if (n_named > n_wires) {
    h.fail("counts inconsistent: 1 + " + std::to_string(n_outputs) + " outputs + " + std::to_string(n_pub_inputs) +
           " public + " + std::to_string(n_prv_inputs) + " private inputs exceed nWires = " + std::to_string(n_wires));
  }
  (void)n_labels;  // labels are debugging names; any count is fine
  if (f.has(section_custom_gates_list) || f.has(section_custom_gates_uses)) {
    f.fail("circuit uses circom custom gates (sections 4/5), which Groth16 cannot prove");
  }

  r1cs_t r;
  r.n_vars = n_wires;
  r.n_public = n_outputs + n_pub_inputs;
  r.n_constraints = n_constraints;

  // ---- constraints ----
  auto c = f.section(section_constraints, "constraints");
  // Each constraint takes at least 3 × 4 bytes (three empty combinations).
  c.need_elements(n_constraints, 12, "constraints");
  // Matrices are coded as they are read (groth16/r1cs.hpp): a circuit's
  // coefficients come from a small set, and 2 bytes per term instead of 32
  // keep a large circuit's peak memory down; one with more than 65536
  // distinct values in a matrix gets that matrix plain.
  sparse_matrix_t* m[3] = {&r.a, &r.b, &r.c};
  std::vector<matrix_builder_t> builders;
  builders.reserve(3);
  for (auto* mat : m) {
    mat->n_rows = n_constraints;
    mat->n_cols = n_wires;
    mat->row_ptr.reserve(uint64_t(n_constraints) + 1);
    mat->row_ptr.push_back(0);
    builders.emplace_back(*mat);
  }
  uint64_t total_terms = 0;
  for (uint32_t i = 0; i < n_constraints; ++i) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t n_terms = c.u32();
      c.need_elements(n_terms, 36, "terms");
      total_terms += n_terms;
      for (uint32_t t = 0; t < n_terms; ++t) {
        const uint32_t wire = c.u32();
        if (wire >= n_wires) {
          c.fail("constraint " + std::to_string(i) + ", " + matrix_names[k] + " term " + std::to_string(t) +
                 ": wire index " + std::to_string(wire) + " out of range (nWires = " + std::to_string(n_wires) + ")");
        }
        builders[k].add(wire, iden3::read_fr(c, "constraint " + std::to_string(i) + ", " + matrix_names[k] + " term " +
                                                    std::to_string(t) + ": coefficient"));
      }
      m[k]->row_ptr.push_back(m[k]->col.size());
    }
  }
  c.expect_end();
  for (matrix_builder_t& b : builders) b.finish();

  // ---- labels (optional; only the length is checked) ----
  // nWires sizes every per-wire vector a caller allocates (a key has four
  // points per wire), so it must be paid for by the file: with labels, 8
  // bytes per wire; without them, every wire but the constant one must be
  // named by some constraint term (36 bytes each), so nWires <= terms + 1.
  if (auto l = f.optional_section(section_labels, "wire labels")) {
    l->need_elements(n_wires, 8, "labels");
    l->skip(size_t(n_wires) * 8);
    l->expect_end();
  } else if (n_wires > total_terms + 1) {
    h.fail("nWires = " + std::to_string(n_wires) + " but the file has no wire labels section and " +
           std::to_string(total_terms) + " constraint terms: at most " + std::to_string(total_terms + 1) +
           " wires can be named");
  }
  return r;
}

void write_r1cs(const std::filesystem::path& file, const r1cs_t& r) {
  check_r1cs_shape(file, r);
  bin_writer_t w("r1cs", 1, 3);
  w.begin_section(section_header);
  iden3::write_prime(w, iden3::prime_t::r);
  w.u32(r.n_vars);
  w.u32(r.n_public);  // nOutputs (see r1cs.hpp: the split is not kept)
  w.u32(0);           // nPubInputs
  w.u32(0);           // nPrvInputs
  w.u64(r.n_vars);    // nLabels
  w.u32(r.n_constraints);

  w.begin_section(section_constraints);
  w.reserve(w.data().size() + 12ull * r.n_constraints + 36 * (r.a.nnz() + r.b.nnz() + r.c.nnz()) + 8ull * r.n_vars +
            64);
  const sparse_matrix_t* m[3] = {&r.a, &r.b, &r.c};
  for (uint32_t i = 0; i < r.n_constraints; ++i) {
    for (const auto* mat : m) {
      const uint64_t lo = mat->row_ptr[i], hi = mat->row_ptr[i + 1];
      w.u32(uint32_t(hi - lo));
      for (uint64_t k = lo; k < hi; ++k) {
        w.u32(mat->col[k]);
        iden3::write_fr(w, mat->value(k));  // either value form
      }
    }
  }

  w.begin_section(section_labels);
  for (uint64_t j = 0; j < r.n_vars; ++j) w.u64(j);
  w.end_section();
  w.save(file);
}

}  // namespace starzk
