// describe() and format_stats(); see stats.hpp. Densities mark each aux wire
// seen in a matrix in a byte map (relaxed atomic stores: any thread may
// mark any wire), then count the marks; value classes are counted per
// thread and summed.
#include "gen/stats.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "util/parallel.hpp"

namespace starzk {
namespace {

// Fraction of aux wires (columns > n_public) that occur in m.
double aux_density(const sparse_matrix_t& m, uint32_t n_vars, uint32_t n_public, unsigned threads) {
  const uint64_t n_aux = n_vars - uint64_t(n_public) - 1;
  if (n_aux == 0) return 0;
  std::vector<uint8_t> seen(n_vars, 0);
  parallel_for(
      m.col.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t k = begin; k < end; ++k)
          std::atomic_ref<uint8_t>(seen[m.col[k]]).store(1, std::memory_order_relaxed);
      },
      1 << 16);
  std::atomic<uint64_t> count{0};
  parallel_for(
      n_vars - (n_public + 1ull), threads,
      [&](size_t begin, size_t end) {
        uint64_t local = 0;
        for (size_t i = begin; i < end; ++i) local += seen[n_public + 1 + i];
        count += local;
      },
      1 << 16);
  return double(count.load()) / double(n_aux);
}

}  // namespace

circuit_stats_t describe(const r1cs_t& cs, std::span<const fr_t> w, unsigned threads) {
  if (!w.empty() && w.size() != cs.n_vars)
    throw std::runtime_error("describe: the witness has " + std::to_string(w.size()) + " values, the circuit " +
                             std::to_string(cs.n_vars) + " wires");
  if (cs.n_vars < uint64_t(cs.n_public) + 1) throw std::runtime_error("describe: n_vars < n_public + 1");
  circuit_stats_t s;
  s.n_constraints = cs.n_constraints;
  s.n_vars = cs.n_vars;
  s.n_public = cs.n_public;
  s.n_aux = cs.n_vars - uint64_t(cs.n_public) - 1;
  s.domain_size = 1;
  while (s.domain_size < s.n_constraints + cs.n_public + 1) s.domain_size <<= 1;
  s.nnz_a = cs.a.nnz(), s.nnz_b = cs.b.nnz(), s.nnz_c = cs.c.nnz();
  const double rows = s.n_constraints ? double(s.n_constraints) : 1.0;
  s.a_per_row = double(s.nnz_a) / rows;
  s.b_per_row = double(s.nnz_b) / rows;
  s.c_per_row = double(s.nnz_c) / rows;
  s.a_aux_density = aux_density(cs.a, cs.n_vars, cs.n_public, threads);
  s.b_aux_density = aux_density(cs.b, cs.n_vars, cs.n_public, threads);

  if (!w.empty() && s.n_aux) {
    s.has_witness = true;
    std::atomic<uint64_t> zeros{0}, ones{0};
    const fr_t* aux = w.data() + cs.n_public + 1;
    parallel_for(
        s.n_aux, threads,
        [&](size_t begin, size_t end) {
          uint64_t z = 0, o = 0;
          for (size_t i = begin; i < end; ++i) {
            z += aux[i].is_zero();
            o += aux[i].is_one();
          }
          zeros += z, ones += o;
        },
        1 << 16);
    s.aux_zero = double(zeros.load()) / double(s.n_aux);
    s.aux_one = double(ones.load()) / double(s.n_aux);
    s.aux_other = 1.0 - s.aux_zero - s.aux_one;
  }
  return s;
}

std::string format_stats(const circuit_stats_t& s) {
  char buf[768];
  int n = std::snprintf(buf, sizeof buf,
                        "constraints %llu, public %u, aux %llu, domain %llu\n"
                        "nnz A %llu, B %llu, C %llu (per row %.3f / %.3f / %.3f)\n"
                        "aux density A %.1f%%, B %.1f%%\n",
                        (unsigned long long)s.n_constraints, s.n_public, (unsigned long long)s.n_aux,
                        (unsigned long long)s.domain_size, (unsigned long long)s.nnz_a, (unsigned long long)s.nnz_b,
                        (unsigned long long)s.nnz_c, s.a_per_row, s.b_per_row, s.c_per_row, 100 * s.a_aux_density,
                        100 * s.b_aux_density);
  std::string out(buf, size_t(n));
  if (s.has_witness) {
    std::snprintf(buf, sizeof buf, "aux values 0: %.2f%%, 1: %.2f%%, other: %.2f%%\n", 100 * s.aux_zero,
                  100 * s.aux_one, 100 * s.aux_other);
    out += buf;
  }
  return out;
}

}  // namespace starzk
