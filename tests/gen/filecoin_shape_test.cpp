// The generated circuits: exact domain fill, satisfying and distinct
// witnesses per partition, Filecoin-like statistics, the same bytes for any
// thread count, and clear errors for bad parameters. Sizes 2^10, 2^12, 2^14
// cover a tail unit and pad rows (k = 10, 14) as well as full units.
#include <gtest/gtest.h>

#include <random>

#include "gen/filecoin_shape.hpp"
#include "gen/stats.hpp"
#include "check.hpp"

namespace starzk {
namespace {

class Shape : public ::testing::TestWithParam<unsigned> {};

TEST_P(Shape, FillsTheDomainExactly) {
  const unsigned k = GetParam();
  const gen_params_t params{k, 328, 7};
  const gen_layout_t l = plan_layout(params);
  const r1cs_t cs = generate_circuit(params);
  EXPECT_EQ(cs.n_constraints + uint64_t(cs.n_public) + 1, uint64_t(1) << k);
  EXPECT_EQ(cs.n_public, l.n_public);
  EXPECT_EQ(cs.n_vars, l.n_vars);
  EXPECT_GE(cs.n_public, 3u);
  EXPECT_LE(cs.n_public, 328u);
  // The CSR is well formed.
  for (const sparse_matrix_t* m : {&cs.a, &cs.b, &cs.c}) {
    ASSERT_EQ(m->n_rows, cs.n_constraints);
    ASSERT_EQ(m->n_cols, cs.n_vars);
    ASSERT_EQ(m->row_ptr.size(), cs.n_constraints + 1ull);
    EXPECT_EQ(m->row_ptr.front(), 0u);
    EXPECT_EQ(m->row_ptr.back(), m->nnz());
    for (uint64_t i = 0; i < m->n_rows; ++i) ASSERT_LE(m->row_ptr[i], m->row_ptr[i + 1]) << "row " << i;
    for (uint32_t c : m->col) ASSERT_LT(c, cs.n_vars);
  }
}

TEST_P(Shape, WitnessesSatisfyAndDiffer) {
  const unsigned k = GetParam();
  const gen_params_t params{k, 328, 11};
  const r1cs_t cs = generate_circuit(params);
  std::vector<std::vector<fr_t>> ws;
  for (uint64_t part = 0; part < 3; ++part) {
    ws.push_back(generate_witness(params, cs, part));
    const auto& w = ws.back();
    ASSERT_EQ(w.size(), cs.n_vars);
    EXPECT_TRUE(w[0].is_one());
    const auto bad = gen_test::first_bad_row(cs, w);
    EXPECT_FALSE(bad.has_value()) << "partition " << part << " fails row " << *bad;
  }
  EXPECT_NE(ws[0], ws[1]);
  EXPECT_NE(ws[1], ws[2]);
  // The public inputs (packed words) differ too.
  EXPECT_FALSE(std::equal(ws[0].begin() + 1, ws[0].begin() + 1 + cs.n_public, ws[1].begin() + 1));
}

TEST_P(Shape, StatisticsLookLikeFilecoin) {
  const unsigned k = GetParam();
  const gen_params_t params{k, 328, 3};
  const r1cs_t cs = generate_circuit(params);
  const std::vector<fr_t> w = generate_witness(params, cs, 0);
  const circuit_stats_t s = describe(cs, w);
  EXPECT_EQ(s.domain_size, uint64_t(1) << k);
  EXPECT_GE(s.a_per_row, 2.2);
  EXPECT_LE(s.a_per_row, 2.6);
  EXPECT_GE(s.b_per_row, 0.9);
  EXPECT_LE(s.b_per_row, 1.1);
  EXPECT_GE(s.c_per_row, 2.0);
  EXPECT_LE(s.c_per_row, 2.4);
  EXPECT_GE(s.aux_zero + s.aux_one, 0.98);
  EXPECT_GT(s.aux_other, 0.0);  // the multiplication rows exist
  EXPECT_GT(s.aux_zero, 0.3);   // random bits: both values common
  EXPECT_GT(s.aux_one, 0.3);
  EXPECT_GE(s.a_aux_density, 0.6);
  EXPECT_GT(s.b_aux_density, 0.0);
}

// The arrays themselves, not just the values (== compares values).
TEST_P(Shape, SameBytesForAnyThreadCount) {
  const unsigned k = GetParam();
  const gen_params_t params{k, 328, 5};
  const r1cs_t one = generate_circuit(params, 1);
  const r1cs_t three = generate_circuit(params, 3);
  EXPECT_TRUE(one == three);
  const sparse_matrix_t* m1[3] = {&one.a, &one.b, &one.c};
  const sparse_matrix_t* m3[3] = {&three.a, &three.b, &three.c};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(m1[i]->row_ptr, m3[i]->row_ptr) << "matrix " << i;
    EXPECT_EQ(m1[i]->col, m3[i]->col) << "matrix " << i;
    EXPECT_EQ(m1[i]->code, m3[i]->code) << "matrix " << i;
    EXPECT_EQ(m1[i]->dict, m3[i]->dict) << "matrix " << i;
  }
  EXPECT_EQ(generate_witness(params, one, 4, 1), generate_witness(params, three, 4, 3));
}

// The matrices come out coded (a small dictionary, every code inside it)
// and equal their plain form, which the witness satisfies too; coding the
// plain form again gives the same values (through a dictionary of only the
// values used, in first-occurrence order).
TEST_P(Shape, CodedAndEqualToThePlainForm) {
  const unsigned k = GetParam();
  const gen_params_t params{k, 328, 9};
  const r1cs_t cs = generate_circuit(params, 2);
  r1cs_t plain = cs;
  expand_circuit(plain, 2);
  for (const sparse_matrix_t* m : {&cs.a, &cs.b, &cs.c}) {
    ASSERT_TRUE(m->coded());
    EXPECT_TRUE(m->val.empty());
    EXPECT_EQ(m->code.size(), m->nnz());
    EXPECT_LE(m->dict.size(), 600u);
    for (uint16_t c : m->code) ASSERT_LT(c, m->dict.size());
  }
  for (const sparse_matrix_t* m : {&plain.a, &plain.b, &plain.c}) EXPECT_FALSE(m->coded());
  EXPECT_TRUE(plain == cs);
  EXPECT_TRUE(cs == plain);
  const std::vector<fr_t> w = generate_witness(params, cs, 1);
  EXPECT_FALSE(gen_test::first_bad_row(plain, w).has_value());
  r1cs_t recoded = plain;
  ASSERT_TRUE(code_circuit(recoded, 3));
  EXPECT_TRUE(recoded == cs);
  EXPECT_LE(recoded.b.dict.size(), cs.b.dict.size());  // B holds ones only
  EXPECT_EQ(recoded.b.dict.size(), 1u);
  EXPECT_TRUE(recoded.b.dict[0].is_one());
}

INSTANTIATE_TEST_SUITE_P(Sizes, Shape, ::testing::Values(10u, 12u, 14u));

TEST(Gen, SeedChangesTheCircuit) {
  const r1cs_t a = generate_circuit({10, 328, 1});
  const r1cs_t b = generate_circuit({10, 328, 2});
  EXPECT_EQ(a.n_vars, b.n_vars);
  EXPECT_EQ(a.a.nnz(), b.a.nnz());
  EXPECT_FALSE(a == b);
}

TEST(Gen, PublicCountIsHonouredOrClamped) {
  for (uint32_t n : {0u, 1u, 2u, 5u}) {
    const gen_params_t params{12, n, 9};
    const r1cs_t cs = generate_circuit(params);
    EXPECT_EQ(cs.n_public, n);
    EXPECT_EQ(cs.n_constraints + n + 1ull, 4096u);
    const auto w = generate_witness(params, cs, 1);
    EXPECT_FALSE(gen_test::first_bad_row(cs, w).has_value()) << "n_public " << n;
  }
  // 2^10 holds one full unit: three packs, so three publics at most.
  EXPECT_EQ(plan_layout({10, 328, 0}).n_public, 3u);
  EXPECT_EQ(plan_layout({20, 328, 0}).n_public, 328u);
  EXPECT_EQ(plan_layout({27, 328, 0}).n_constraints, (uint64_t(1) << 27) - 329);
}

TEST(Gen, EveryAuxWireIsConstrained) {
  // Changing any single aux value breaks some row (sampled wires).
  const gen_params_t params{10, 328, 13};
  const r1cs_t cs = generate_circuit(params);
  const std::vector<fr_t> w = generate_witness(params, cs, 0);
  std::mt19937_64 rng(42);
  std::vector<uint32_t> wires = {cs.n_public + 1u, cs.n_vars - 1u};
  for (int i = 0; i < 40; ++i) wires.push_back(cs.n_public + 1 + uint32_t(rng() % (cs.n_vars - cs.n_public - 1)));
  for (uint32_t j = 1; j <= cs.n_public; ++j) wires.push_back(j);  // publics too
  for (uint32_t wire : wires) {
    std::vector<fr_t> bad = w;
    bad[wire] += fr_t::one();
    EXPECT_TRUE(gen_test::first_bad_row(cs, bad).has_value()) << "wire " << wire;
  }
}

TEST(Gen, BadParametersAreRefused) {
  EXPECT_THROW(plan_layout({9, 328, 0}), std::runtime_error);
  EXPECT_THROW(generate_circuit({28, 328, 0}), std::runtime_error);
  const r1cs_t cs = generate_circuit({10, 328, 0});
  try {
    generate_witness({11, 328, 0}, cs, 0);
    ADD_FAILURE() << "a witness for another size was produced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not generated from these parameters"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace starzk
