// Coded matrices (groth16/r1cs.hpp): coding and expanding, value equality
// across the two forms, the 65536-value dictionary limit, the term-by-term
// builder, and every CPU consumer giving the same result for a coded and a
// plain circuit: the witness map in both conventions (input rows included),
// the satisfaction check, and the development setup with fixed toxic waste.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "groth16/setup.hpp"
#include "groth16/witness_map.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"

namespace starzk {
namespace {

const std::filesystem::path fixtures = std::filesystem::path(STARZK_TEST_DATA) / "fixtures";

// Values from a pool of `pool` small constants (±1, 2^i, a few others), so
// a matrix has repeats the way circuits do; rows of 0..5 terms.
sparse_matrix_t pooled_matrix(std::mt19937_64& rng, uint64_t rows, uint64_t cols, unsigned pool) {
  std::vector<fr_t> values;
  for (unsigned i = 0; i < pool; ++i)
    values.push_back(i == 0 ? -fr_t::one() : i < 40 ? fr_t::from_u64(uint64_t(1) << (i - 1)) : fr_t::random(rng));
  sparse_matrix_t m = sparse_matrix_t::empty(rows, cols);
  for (uint64_t i = 0; i < rows; ++i) {
    const unsigned len = cols ? unsigned(rng() % 6) : 0;
    for (unsigned t = 0; t < len; ++t) {
      m.col.push_back(uint32_t(rng() % cols));
      m.val.push_back(values[rng() % values.size()]);
    }
    m.row_ptr[i + 1] = m.col.size();
  }
  return m;
}

// One row holding the values 2, 3, ..., count + 1 (all distinct, none 1).
sparse_matrix_t distinct_values(uint64_t count, uint64_t cols) {
  sparse_matrix_t m = sparse_matrix_t::empty(1, cols);
  for (uint64_t k = 0; k < count; ++k) {
    m.col.push_back(uint32_t(k % cols));
    m.val.push_back(fr_t::from_u64(k + 2));
  }
  m.row_ptr[1] = count;
  return m;
}

TEST(CodedMatrix, CodeAndExpandRoundTrip) {
  std::mt19937_64 rng(1);
  const sparse_matrix_t plain = pooled_matrix(rng, 3000, 200, 50);
  sparse_matrix_t m = plain;
  ASSERT_TRUE(code_matrix(m, 2));
  EXPECT_TRUE(m.coded());
  EXPECT_TRUE(m.val.empty());
  EXPECT_EQ(m.code.size(), plain.nnz());
  EXPECT_LE(m.dict.size(), 50u);
  EXPECT_EQ(m.dict[0], plain.val[0]);  // first occurrence first
  for (uint64_t k = 0; k < plain.nnz(); ++k) ASSERT_EQ(m.value(k), plain.val[k]) << k;
  EXPECT_TRUE(m == plain);
  EXPECT_TRUE(plain == m);
  EXPECT_TRUE(code_matrix(m));  // already coded: unchanged
  expand_matrix(m, 3);
  EXPECT_FALSE(m.coded());
  EXPECT_TRUE(m.code.empty());
  EXPECT_EQ(m.val, plain.val);
}

TEST(CodedMatrix, SameCodesForAnyThreadCount) {
  std::mt19937_64 rng(2);
  const sparse_matrix_t plain = pooled_matrix(rng, 20000, 500, 300);
  sparse_matrix_t one = plain;
  ASSERT_TRUE(code_matrix(one, 1));
  for (unsigned threads : {2u, 3u, 8u}) {
    sparse_matrix_t m = plain;
    ASSERT_TRUE(code_matrix(m, threads));
    EXPECT_EQ(m.dict, one.dict) << threads;
    EXPECT_EQ(m.code, one.code) << threads;
  }
}

TEST(CodedMatrix, DictionaryHoldsAtMost65536Values) {
  sparse_matrix_t full = distinct_values(max_dict_size, 7);
  ASSERT_TRUE(code_matrix(full, 3));
  EXPECT_EQ(full.dict.size(), max_dict_size);
  EXPECT_EQ(full.code.back(), max_dict_size - 1);
  const sparse_matrix_t plain = distinct_values(max_dict_size + 1, 7);
  sparse_matrix_t over = plain;
  EXPECT_FALSE(code_matrix(over, 3));
  EXPECT_FALSE(over.coded());
  EXPECT_EQ(over.val, plain.val);
  // dict_code: found, appended, refused when full.
  EXPECT_EQ(dict_code(full, fr_t::from_u64(2)), std::optional<uint16_t>(0));
  EXPECT_EQ(dict_code(full, fr_t::one()), std::nullopt);
  sparse_matrix_t small = distinct_values(3, 2);
  ASSERT_TRUE(code_matrix(small));
  EXPECT_EQ(dict_code(small, fr_t::one()), std::optional<uint16_t>(3));
  EXPECT_EQ(small.dict.size(), 4u);
}

TEST(CodedMatrix, EqualityComparesValues) {
  std::mt19937_64 rng(3);
  const sparse_matrix_t plain = pooled_matrix(rng, 500, 40, 20);
  sparse_matrix_t coded = plain;
  ASSERT_TRUE(code_matrix(coded));
  // The same values through another dictionary (reversed order).
  sparse_matrix_t other = coded;
  std::reverse(other.dict.begin(), other.dict.end());
  for (uint16_t& c : other.code) c = uint16_t(other.dict.size() - 1 - c);
  EXPECT_TRUE(other == coded);
  EXPECT_TRUE(other == plain);
  // One value changed, in either form.
  sparse_matrix_t changed = plain;
  changed.val[17] += fr_t::one();
  EXPECT_FALSE(changed == coded);
  EXPECT_FALSE(coded == changed);
  sparse_matrix_t recoded = changed;
  ASSERT_TRUE(code_matrix(recoded));
  EXPECT_FALSE(recoded == coded);
  // Structure still counts.
  sparse_matrix_t moved = coded;
  moved.col[3] = (moved.col[3] + 1) % 40;
  EXPECT_FALSE(moved == plain);
  // A code outside its dictionary compares unequal instead of reading past it.
  sparse_matrix_t broken = other;
  broken.code[0] = uint16_t(broken.dict.size());
  EXPECT_FALSE(broken == plain);
}

TEST(CodedMatrix, EmptyMatrixStaysPlain) {
  sparse_matrix_t m = sparse_matrix_t::empty(5, 3);
  EXPECT_TRUE(code_matrix(m));
  EXPECT_FALSE(m.coded());
  EXPECT_TRUE(m == sparse_matrix_t::empty(5, 3));
}

TEST(CodedMatrix, BuilderGoesPlainPastTheLimit) {
  for (const uint64_t count : {uint64_t(10), uint64_t(max_dict_size), uint64_t(max_dict_size + 5)}) {
    const sparse_matrix_t want = distinct_values(count, 9);
    sparse_matrix_t m = sparse_matrix_t::empty(0, 9);
    m.n_rows = 1;
    matrix_builder_t b(m);
    for (uint64_t k = 0; k < count; ++k) b.add(want.col[k], want.val[k]);
    m.row_ptr.push_back(m.col.size());
    b.finish();
    EXPECT_EQ(m.coded(), count <= max_dict_size) << count;
    EXPECT_TRUE(m == want) << count;
  }
}

// ---- consumers ----------------------------------------------------------------

r1cs_t pooled_circuit(std::mt19937_64& rng, uint32_t rows, uint32_t n_public, uint32_t n_vars) {
  r1cs_t cs;
  cs.n_constraints = rows;
  cs.n_public = n_public;
  cs.n_vars = n_vars;
  cs.a = pooled_matrix(rng, rows, n_vars, 60);
  cs.b = pooled_matrix(rng, rows, n_vars, 3);
  cs.c = pooled_matrix(rng, rows, n_vars, 60);
  return cs;
}

std::vector<fr_t> random_witness(std::mt19937_64& rng, size_t n) {
  std::vector<fr_t> w(n);
  for (auto& x : w) x = rng() % 3 == 0 ? fr_t::random(rng) : fr_t::from_u64(rng() % 2);
  w[0] = fr_t::one();
  return w;
}

TEST(CodedMatrix, WitnessMapSameForBothForms) {
  std::mt19937_64 rng(4);
  const r1cs_t plain = pooled_circuit(rng, 1000, 5, 300);
  r1cs_t coded = plain;
  ASSERT_TRUE(code_circuit(coded, 2));
  r1cs_t mixed = plain;  // one matrix of each form in the same map
  ASSERT_TRUE(code_matrix(mixed.b));
  const std::vector<fr_t> w = random_witness(rng, plain.n_vars);
  const uint64_t n = domain_size_for(plain);
  // bellman: the circuit's rows and the n_public + 1 input rows.
  const qap_rows_t want = witness_map_r1cs(plain, w, n, 2);
  for (const r1cs_t* cs : {&coded, &mixed}) {
    const qap_rows_t got = witness_map_r1cs(*cs, w, n, 3);
    EXPECT_EQ(got.a, want.a);
    EXPECT_EQ(got.b, want.b);
    EXPECT_EQ(got.c, want.c);
  }
  for (uint64_t s = 0; s <= plain.n_public; ++s) EXPECT_EQ(want.a[plain.n_constraints + s], w[s]);
  // snarkjs: the key's own matrices, coded or plain.
  proving_key_t pk;
  pk.convention = root_convention_t::snarkjs;
  pk.n_vars = plain.n_vars;
  pk.n_public = plain.n_public;
  pk.domain_size = n;
  pk.zkey_a = plain.a;
  pk.zkey_b = plain.b;
  pk.zkey_a.n_rows = pk.zkey_b.n_rows = n;
  pk.zkey_a.row_ptr.resize(n + 1, pk.zkey_a.row_ptr.back());
  pk.zkey_b.row_ptr.resize(n + 1, pk.zkey_b.row_ptr.back());
  proving_key_t pk_coded = pk;
  ASSERT_TRUE(code_matrix(pk_coded.zkey_a) && code_matrix(pk_coded.zkey_b));
  const qap_rows_t zp = witness_map_zkey(pk, w, 2), zc = witness_map_zkey(pk_coded, w, 3);
  EXPECT_EQ(zc.a, zp.a);
  EXPECT_EQ(zc.b, zp.b);
  EXPECT_EQ(zc.c, zp.c);
}

TEST(CodedMatrix, SatisfactionCheckSameForBothForms) {
  const r1cs_t coded = read_r1cs(fixtures / "bits" / "circuit.r1cs");
  ASSERT_TRUE(coded.a.coded() && coded.b.coded() && coded.c.coded());  // the reader codes
  r1cs_t plain = coded;
  expand_circuit(plain);
  std::vector<fr_t> w = read_wtns(fixtures / "bits" / "witness.wtns", coded.n_vars);
  EXPECT_FALSE(first_unsatisfied_row(coded, w, 2).has_value());
  EXPECT_FALSE(first_unsatisfied_row(plain, w, 2).has_value());
  w[coded.n_vars - 1] += fr_t::one();
  const auto bad = first_unsatisfied_row(plain, w, 2);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(first_unsatisfied_row(coded, w, 2), bad);
}

const toxic_waste_t fixed_waste{fr_t::from_u64(123456789), fr_t::from_u64(5), fr_t::from_u64(7), fr_t::from_u64(11),
                                fr_t::from_u64(13)};

TEST(CodedMatrix, SetupGivesTheSameKey) {
  const r1cs_t coded = read_r1cs(fixtures / "multiplier" / "circuit.r1cs");
  ASSERT_TRUE(coded.a.coded());
  r1cs_t plain = coded;
  expand_circuit(plain);
  for (const auto conv : {root_convention_t::bellman, root_convention_t::snarkjs}) {
    const proving_key_t from_plain = setup(plain, conv, fixed_waste, 2u);
    const proving_key_t from_coded = setup(coded, conv, fixed_waste, 2u);
    EXPECT_TRUE(from_coded == from_plain) << int(conv);
    EXPECT_EQ(from_coded.a, from_plain.a);
    EXPECT_EQ(from_coded.l, from_plain.l);
    if (conv == root_convention_t::snarkjs) {
      EXPECT_TRUE(from_coded.zkey_a.coded());  // the input rows' 1 joined the dictionary
      EXPECT_FALSE(from_plain.zkey_a.coded());
    }
  }
}

// A full dictionary without a 1: the .zkey A (which gains the input rows'
// ones) is expanded, and the key is still the plain circuit's.
TEST(CodedMatrix, SetupWithAFullDictionary) {
  r1cs_t plain;
  plain.n_vars = 4;
  plain.n_public = 1;
  plain.n_constraints = 1;
  plain.a = distinct_values(max_dict_size, 4);
  plain.b = distinct_values(1, 4);
  plain.c = distinct_values(2, 4);
  r1cs_t coded = plain;
  ASSERT_TRUE(code_circuit(coded));
  const proving_key_t from_plain = setup(plain, root_convention_t::snarkjs, fixed_waste, 2u);
  const proving_key_t from_coded = setup(coded, root_convention_t::snarkjs, fixed_waste, 2u);
  EXPECT_FALSE(from_coded.zkey_a.coded());
  EXPECT_TRUE(from_coded.zkey_b.coded());
  EXPECT_TRUE(from_coded == from_plain);
}

}  // namespace
}  // namespace starzk
