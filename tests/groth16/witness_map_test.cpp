// The witness map on real circuits: the rows of a satisfying witness obey
// a∘b = c on every domain row (constraints, input rows, padding), in both
// conventions, and first_unsatisfied_row finds a broken constraint.
#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace starzk
