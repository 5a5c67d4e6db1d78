// describe() on a hand-made circuit whose figures are known, so the
// statistics are checked independently of the generator.
#include <gtest/gtest.h>

#include "gen/stats.hpp"

namespace starzk {
namespace {

// Rows: w3·w4 = w5 and (1 − w3)·w3 = 0; wires 0 (one), 1..2 public, 3..5 aux.
r1cs_t tiny() {
  r1cs_t cs;
  cs.n_vars = 6, cs.n_public = 2, cs.n_constraints = 2;
  auto make = [](std::vector<uint64_t> rp, std::vector<uint32_t> col) {
    sparse_matrix_t m = sparse_matrix_t::empty(2, 6);
    m.row_ptr = std::move(rp);
    m.col = std::move(col);
    m.val.assign(m.col.size(), fr_t::one());
    return m;
  };
  cs.a = make({0, 1, 3}, {3, 0, 3});
  cs.b = make({0, 1, 2}, {4, 3});
  cs.c = make({0, 1, 1}, {5});
  return cs;
}

TEST(Stats, CountsAHandMadeCircuit) {
  const r1cs_t cs = tiny();
  const std::vector<fr_t> w = {fr_t::one(), fr_t::from_u64(9), fr_t::from_u64(8),
                               fr_t::one(), fr_t::zero(),      fr_t::from_u64(77)};
  for (unsigned threads : {1u, 4u}) {
    const circuit_stats_t s = describe(cs, w, threads);
    EXPECT_EQ(s.n_aux, 3u);
    EXPECT_EQ(s.domain_size, 8u);  // 2 rows + 3 input rows -> 8
    EXPECT_EQ(s.nnz_a, 3u);
    EXPECT_DOUBLE_EQ(s.a_per_row, 1.5);
    EXPECT_DOUBLE_EQ(s.b_per_row, 1.0);
    EXPECT_DOUBLE_EQ(s.c_per_row, 0.5);
    EXPECT_DOUBLE_EQ(s.a_aux_density, 1.0 / 3);  // only w3
    EXPECT_DOUBLE_EQ(s.b_aux_density, 2.0 / 3);  // w3, w4
    ASSERT_TRUE(s.has_witness);
    EXPECT_DOUBLE_EQ(s.aux_zero, 1.0 / 3);
    EXPECT_DOUBLE_EQ(s.aux_one, 1.0 / 3);
    EXPECT_NEAR(s.aux_other, 1.0 / 3, 1e-12);  // the public 9 and 8 are not counted
  }
  const std::string text = format_stats(describe(cs, w));
  EXPECT_NE(text.find("per row 1.500 / 1.000 / 0.500"), std::string::npos) << text;
  EXPECT_NE(text.find("other: 33.33%"), std::string::npos) << text;
}

TEST(Stats, WithoutWitnessAndWrongLength) {
  const r1cs_t cs = tiny();
  const circuit_stats_t s = describe(cs);
  EXPECT_FALSE(s.has_witness);
  EXPECT_EQ(s.aux_zero + s.aux_one + s.aux_other, 0.0);
  EXPECT_EQ(format_stats(s).find("aux values"), std::string::npos);
  const std::vector<fr_t> short_w(5, fr_t::one());
  EXPECT_THROW(describe(cs, short_w), std::runtime_error);
}

}  // namespace
}  // namespace starzk
