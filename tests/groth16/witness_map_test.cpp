// The witness map on real circuits: the rows of a satisfying witness obey
// a∘b = c on every domain row (constraints, input rows, padding), in both
// conventions, and first_unsatisfied_row finds a broken constraint. The
// SpMV's 0/1 shortcut equals the plain product-per-term form on fresh
// random matrices (plain and coded values) and witnesses mixing zeros,
// ones, other values and edge values (r − 1, 2); the check on the rows
// (first_unsatisfied_qap_row) finds the first broken row through each of
// its branches (a or b 0, a 1, b 1, neither).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "groth16/setup.hpp"
#include "groth16/witness_map.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace starzk {
namespace {

const std::filesystem::path fixtures = std::filesystem::path(STARZK_TEST_DATA) / "fixtures";

TEST(WitnessMap, RowsSatisfyTheQap) {
  const r1cs_t cs = read_r1cs(fixtures / "bits" / "circuit.r1cs");
  const std::vector<fr_t> w = read_wtns(fixtures / "bits" / "witness.wtns", cs.n_vars);
  const uint64_t n = domain_size_for(cs);
  EXPECT_GE(n, uint64_t(cs.n_constraints) + cs.n_public + 1);
  EXPECT_LT(n / 2, uint64_t(cs.n_constraints) + cs.n_public + 1);

  const qap_rows_t q = witness_map_r1cs(cs, w, n, 2);
  ASSERT_EQ(q.a.size(), n);
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(q.a[i] * q.b[i], q.c[i]) << "row " << i;
  for (uint64_t s = 0; s <= cs.n_public; ++s) EXPECT_EQ(q.a[cs.n_constraints + s], w[s]);

  // The snarkjs key's own matrices give the same a and b rows.
  const proving_key_t pk = read_zkey(fixtures / "bits" / "circuit.zkey");
  ASSERT_EQ(pk.domain_size, n);
  const qap_rows_t z = witness_map_zkey(pk, w, 2);
  EXPECT_EQ(z.a, q.a);
  EXPECT_EQ(z.b, q.b);
  EXPECT_EQ(z.c, q.c);
}

TEST(WitnessMap, FindsTheBrokenRow) {
  const r1cs_t cs = read_r1cs(fixtures / "multiplier" / "circuit.r1cs");
  std::vector<fr_t> w = read_wtns(fixtures / "multiplier" / "witness.wtns", cs.n_vars);
  EXPECT_FALSE(first_unsatisfied_row(cs, w).has_value());
  w[cs.n_vars - 1] += fr_t::one();
  EXPECT_TRUE(first_unsatisfied_row(cs, w).has_value());
}

// A random matrix over `cols` wires: rows of 0..7 terms, coefficients from
// a small pool (±1, powers of two, random) as circuits have.
sparse_matrix_t random_matrix(std::mt19937_64& rng, uint64_t rows, uint64_t cols) {
  std::vector<fr_t> pool = {fr_t::one(), -fr_t::one(), fr_t::from_u64(2), fr_t::zero()};
  for (int i = 0; i < 12; ++i) pool.push_back(fr_t::random(rng));
  sparse_matrix_t m = sparse_matrix_t::empty(rows, cols);
  for (uint64_t i = 0; i < rows; ++i) {
    for (unsigned t = unsigned(rng() % 8); t > 0; --t) {
      m.col.push_back(uint32_t(rng() % cols));
      m.val.push_back(pool[rng() % pool.size()]);
    }
    m.row_ptr[i + 1] = m.col.size();
  }
  return m;
}

TEST(WitnessMap, BitShortcutEqualsAProductPerTerm) {
  std::mt19937_64 rng(std::random_device{}());
  for (const unsigned others_in_100 : {0u, 1u, 50u, 100u}) {
    SCOPED_TRACE("other values per 100 wires: " + std::to_string(others_in_100));
    const uint64_t cols = 1 + rng() % 3000, rows = 1 + rng() % 5000;
    std::vector<fr_t> w(cols);
    for (fr_t& x : w) {
      const unsigned d = unsigned(rng() % 100);
      x = d < others_in_100 ? fr_t::random(rng) : (d & 1) ? fr_t::one() : fr_t::zero();
    }
    w[0] = -fr_t::one();  // r − 1: the largest value, neither 0 nor 1
    if (cols > 1) w[1] = fr_t::from_u64(2);
    const std::vector<uint8_t> kinds = witness_kinds(w, 2);
    EXPECT_EQ(kinds[0], witness_other);
    for (uint64_t j = 0; j < cols; ++j)
      ASSERT_EQ(kinds[j], w[j].is_zero() ? witness_zero : w[j].is_one() ? witness_one : witness_other) << j;
    sparse_matrix_t m = random_matrix(rng, rows, cols);
    std::vector<fr_t> want(rows + 3, fr_t::from_u64(7)), got(rows + 3, fr_t::from_u64(7));
    spmv_multiply_all(m, w, want, 2);
    spmv(m, w, got, 3);
    EXPECT_EQ(got, want);  // the rows past the matrix untouched in both
    ASSERT_TRUE(code_matrix(m, 2));
    std::fill(got.begin(), got.end(), fr_t::from_u64(7));
    spmv(m, w, kinds, got, 1);
    EXPECT_EQ(got, want);
    EXPECT_THROW(spmv(m, w, std::span<const uint8_t>(kinds).first(cols - 1), got, 1), std::invalid_argument);
  }
}

TEST(WitnessMap, FusedRowsEqualTheSpmvsAndFindTheBrokenConstraint) {
  const r1cs_t cs = read_r1cs(fixtures / "bits" / "circuit.r1cs");
  std::vector<fr_t> w = read_wtns(fixtures / "bits" / "witness.wtns", cs.n_vars);
  const uint64_t rows = cs.n_constraints;
  std::vector<fr_t> a(rows), b(rows), c(rows), a2(rows), b2(rows), c2(rows);
  EXPECT_FALSE(spmv_rows_checked(cs, w, witness_kinds(w), a, b, c, 2).has_value());
  spmv_multiply_all(cs.a, w, a2, 1);
  spmv_multiply_all(cs.b, w, b2, 1);
  spmv_multiply_all(cs.c, w, c2, 1);
  EXPECT_EQ(a, a2);
  EXPECT_EQ(b, b2);
  EXPECT_EQ(c, c2);
  w.back() += fr_t::one();
  const std::optional<uint64_t> want = first_unsatisfied_row(cs, w);
  ASSERT_TRUE(want.has_value());
  EXPECT_EQ(spmv_rows_checked(cs, w, witness_kinds(w), a, b, c, 3), want);
  EXPECT_THROW(spmv_rows_checked(cs, w, witness_kinds(w), std::span<fr_t>(a).first(rows - 1), b, c),
               std::invalid_argument);
}

TEST(WitnessMap, QapRowCheckFindsTheFirstBrokenRow) {
  std::mt19937_64 rng(std::random_device{}());
  const uint64_t n = 4096;
  std::vector<fr_t> a(n), b(n), c(n);
  // (a, b) cycles through (0, x), (1, x), (x, 0), (x, 1), (x, y): each
  // branch of the check.
  auto value = [&](uint64_t kind) { return kind == 0 ? fr_t::zero() : kind == 1 ? fr_t::one() : fr_t::random(rng); };
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t r = i % 5;
    a[i] = value(r < 2 ? r : 2);
    b[i] = value(r == 2 ? 0 : r == 3 ? 1 : 2);
    c[i] = a[i] * b[i];
  }
  EXPECT_FALSE(first_unsatisfied_qap_row(a, b, c, n, 3).has_value());
  for (const uint64_t bad : {uint64_t(5), uint64_t(1001), uint64_t(2002), uint64_t(3003), uint64_t(4094)}) {
    std::vector<fr_t> c2 = c;
    c2[bad] += fr_t::one();
    c2[n - 1] += fr_t::one();  // a later break: the first one is reported
    const auto row = first_unsatisfied_qap_row(a, b, c2, n, 3);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(*row, bad);
    EXPECT_FALSE(first_unsatisfied_qap_row(a, b, c2, bad, 3).has_value());  // rows before it only
  }
  EXPECT_THROW(first_unsatisfied_qap_row(a, b, c, n + 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace starzk
