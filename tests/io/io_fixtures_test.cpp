// Reads every committed snarkjs/circom fixture (tests/fixtures/NAME, made by
// tests/fixtures/make-fixtures.sh) and checks what our readers see against
// what snarkjs saw: the counts of `snarkjs r1cs info`, the JSON views
// (`r1cs/wtns/zkey export json`, or their digests for large circuits), the
// witness satisfying the constraints, the key's points, the verification
// key against verification_key.json, and proof.json / public.json.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>

#include "io/proof_json.hpp"
#include "io/r1cs.hpp"
#include "io/vkey_json.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

using nlohmann::json;

class fixture_test : public ::testing::TestWithParam<std::string> {
 protected:
  fs::path path(const std::string& f) const { return fixture(GetParam(), f); }
  json load(const std::string& f) const { return json::parse(read_text(path(f))); }
  bool has(const std::string& f) const { return fs::exists(path(f)); }
};

// "# of Wires: 68" -> 68, from the snarkjs r1cs info output.
uint64_t info_count(const std::string& text, const std::string& key) {
  std::smatch m;
  const std::regex re("# of " + key + ": ([0-9]+)");
  if (!std::regex_search(text, m, re)) {
    ADD_FAILURE() << "r1cs_info.txt has no '" << key << "'";
    return 0;
  }
  return std::stoull(m[1]);
}

// One linear combination as snarkjs prints it: {"wire": "coefficient"}.
std::map<uint32_t, std::string> row_of(const sparse_matrix_t& m, uint64_t i) {
  std::map<uint32_t, std::string> r;
  for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) r[m.col[k]] = m.value(k).to_decimal();
  return r;
}
std::map<uint32_t, std::string> row_of(const json& lc) {
  std::map<uint32_t, std::string> r;
  for (auto& [k, v] : lc.items()) r[uint32_t(std::stoul(k))] = v.get<std::string>();
  return r;
}

TEST_P(fixture_test, r1cs_counts_match_snarkjs) {
  const r1cs_t r = read_r1cs(path("circuit.r1cs"));
  const std::string info = read_text(path("r1cs_info.txt"));
  EXPECT_EQ(r.n_vars, info_count(info, "Wires"));
  EXPECT_EQ(r.n_constraints, info_count(info, "Constraints"));
  EXPECT_EQ(r.n_public, info_count(info, "Outputs") + info_count(info, "Public Inputs"));
  for (const auto* m : {&r.a, &r.b, &r.c}) {
    EXPECT_EQ(m->n_rows, r.n_constraints);
    EXPECT_EQ(m->n_cols, r.n_vars);
    EXPECT_EQ(m->row_ptr.size(), r.n_constraints + 1ull);
  }
  EXPECT_GT(r.a.nnz(), 0u);
}

TEST_P(fixture_test, r1cs_matches_snarkjs_export) {
  const r1cs_t r = read_r1cs(path("circuit.r1cs"));
  const sparse_matrix_t* m[3] = {&r.a, &r.b, &r.c};
  if (has("r1cs.json")) {
    const json j = load("r1cs.json");
    ASSERT_EQ(j["constraints"].size(), r.n_constraints);
    EXPECT_EQ(j["nVars"].get<uint64_t>(), r.n_vars);
    for (uint64_t i = 0; i < r.n_constraints; ++i) {
      for (int k = 0; k < 3; ++k) ASSERT_EQ(row_of(*m[k], i), row_of(j["constraints"][i][k])) << "row " << i;
    }
  } else {
    const json d = load("r1cs.digest.json");
    EXPECT_EQ(d["nConstraints"].get<uint64_t>(), r.n_constraints);
    EXPECT_EQ(d["nVars"].get<uint64_t>(), r.n_vars);
    EXPECT_EQ(d["nOutputs"].get<uint64_t>() + d["nPubInputs"].get<uint64_t>(), r.n_public);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(row_of(*m[k], 0), row_of(d["first_constraint"][k]));
  }
}

TEST_P(fixture_test, witness_matches_export_and_satisfies_r1cs) {
  const r1cs_t r = read_r1cs(path("circuit.r1cs"));
  const std::vector<fr_t> w = read_wtns(path("witness.wtns"), r.n_vars);
  const json j = load("witness.json");
  ASSERT_EQ(j.size(), w.size());
  for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(w[i].to_decimal(), j[i].get<std::string>()) << i;
  EXPECT_EQ(first_unsatisfied_row(r, w), -1);

  // The check can fail: change one internal wire that appears in a row.
  std::vector<fr_t> bad = w;
  uint32_t wire = 0;
  for (uint64_t k = r.a.nnz(); k-- > 0 && wire == 0;) wire = r.a.col[k];  // last A term on a real wire
  ASSERT_NE(wire, 0u);
  bad[wire] += fr_t::one();
  EXPECT_NE(first_unsatisfied_row(r, bad), -1);

  // public.json holds wires 1..n_public.
  const std::vector<fr_t> pub = read_public_json(path("public.json"));
  ASSERT_EQ(pub.size(), r.n_public);
  for (uint32_t i = 0; i < r.n_public; ++i) EXPECT_EQ(pub[i], w[1 + i]);
}

TEST_P(fixture_test, zkey_matches_r1cs_and_export) {
  const r1cs_t r = read_r1cs(path("circuit.r1cs"));
  const proving_key_t k = read_zkey(path("circuit.zkey"));
  EXPECT_EQ(k.convention, root_convention_t::snarkjs);
  EXPECT_EQ(k.n_vars, r.n_vars);
  EXPECT_EQ(k.n_public, r.n_public);
  const uint64_t rows = uint64_t(r.n_constraints) + r.n_public + 1;
  EXPECT_GE(k.domain_size, rows);
  EXPECT_LT(k.domain_size / 2, rows);
  EXPECT_EQ(k.h.size(), k.domain_size);
  EXPECT_EQ(k.l.size(), r.n_vars - r.n_public - 1);
  EXPECT_EQ(k.vk.ic.size(), r.n_public + 1ull);

  // Section 4 = the r1cs A and B rows, then A[s] = 1 at row nConstraints + s.
  for (uint64_t i = 0; i < r.n_constraints; ++i) {
    ASSERT_EQ(row_of(k.zkey_a, i), row_of(r.a, i)) << "A row " << i;
    ASSERT_EQ(row_of(k.zkey_b, i), row_of(r.b, i)) << "B row " << i;
  }
  for (uint32_t s = 0; s <= r.n_public; ++s) {
    EXPECT_EQ(row_of(k.zkey_a, r.n_constraints + s), (std::map<uint32_t, std::string>{{s, "1"}}));
  }
  for (uint64_t i = rows; i < k.domain_size; ++i) EXPECT_TRUE(row_of(k.zkey_a, i).empty());

  // Every decoded point is in its group (the reader checked; check again).
  for (const auto& p : k.a) ASSERT_TRUE(p.is_on_curve() && p.is_in_subgroup());
  for (const auto& p : k.b_g2) ASSERT_TRUE(p.is_on_curve() && p.is_in_subgroup());
  for (const auto& p : k.h) ASSERT_TRUE(!p.is_infinity() && p.is_in_subgroup());

  if (has("zkey.json")) {
    const json j = load("zkey.json");
    EXPECT_EQ(j["nVars"].get<uint32_t>(), k.n_vars);
    EXPECT_EQ(j["domainSize"].get<uint64_t>(), k.domain_size);
    EXPECT_EQ(j["ccoefs"].size(), k.zkey_a.nnz() + k.zkey_b.nnz());
    for (const auto& c : j["ccoefs"]) {
      const auto& m = c["matrix"].get<int>() == 0 ? k.zkey_a : k.zkey_b;
      const auto row = row_of(m, c["constraint"].get<uint64_t>());
      ASSERT_EQ(row.at(c["signal"].get<uint32_t>()), c["value"].get<std::string>());
    }
    auto g1 = [](const g1_affine_t& p) {
      return p.is_infinity() ? json::array({"0", "1", "0"}) : json::array({p.x.to_decimal(), p.y.to_decimal(), "1"});
    };
    for (size_t i = 0; i < k.a.size(); ++i) ASSERT_EQ(g1(k.a[i]), j["A"][i]) << i;
    for (size_t i = 0; i < k.l.size(); ++i)
      ASSERT_EQ(g1(k.l[i]), j["C"][i + k.n_public + 1]) << i;  // C[0..nPublic] are null
    for (size_t i = 0; i < k.h.size(); ++i) ASSERT_EQ(g1(k.h[i]), j["hExps"][i]) << i;
    EXPECT_EQ(g1(k.beta_g1), j["vk_beta_1"]);
    EXPECT_EQ(g1(k.delta_g1), j["vk_delta_1"]);
    for (size_t i = 0; i < k.b_g2.size(); ++i) {
      const auto& p = k.b_g2[i];
      const json want =
          p.is_infinity()
              ? json::array({json::array({"0", "0"}), json::array({"1", "0"}), json::array({"0", "0"})})
              : json::array({json::array({p.x.c0.to_decimal(), p.x.c1.to_decimal()}),
                             json::array({p.y.c0.to_decimal(), p.y.c1.to_decimal()}), json::array({"1", "0"})});
      ASSERT_EQ(want, j["B2"][i]) << i;
    }
  } else {
    const json d = load("zkey.digest.json");
    EXPECT_EQ(d["nVars"].get<uint32_t>(), k.n_vars);
    EXPECT_EQ(d["nPublic"].get<uint32_t>(), k.n_public);
    EXPECT_EQ(d["domainSize"].get<uint64_t>(), k.domain_size);
    EXPECT_EQ(d["ccoefs_length"].get<uint64_t>(), k.zkey_a.nnz() + k.zkey_b.nnz());
    EXPECT_EQ(d["hExps_length"].get<uint64_t>(), k.h.size());
    EXPECT_EQ(d["C_length"].get<uint64_t>(), k.n_vars);  // snarkjs pads C to nVars
  }
}

TEST_P(fixture_test, zkey_vk_equals_verification_key_json) {
  const proving_key_t k = read_zkey(path("circuit.zkey"));
  const verifying_key_t vk = read_vkey_json(path("verification_key.json"));
  EXPECT_EQ(k.vk, vk);
  EXPECT_EQ(k.alpha_g1, vk.alpha_g1);
  EXPECT_EQ(k.beta_g2, vk.beta_g2);
  EXPECT_EQ(k.delta_g2, vk.delta_g2);
  EXPECT_NE(vk.gamma_g2, vk.delta_g2);  // after one contribution δ ≠ γ
}

TEST_P(fixture_test, proof_json_reads) {
  const proof_t p = read_proof_json(path("proof.json"));
  EXPECT_TRUE(p.a.is_in_subgroup() && !p.a.is_infinity());
  EXPECT_TRUE(p.b.is_in_subgroup() && !p.b.is_infinity());
  EXPECT_TRUE(p.c.is_in_subgroup() && !p.c.is_infinity());
  const json j = load("proof.json");
  EXPECT_EQ(p.a.x.to_decimal(), j["pi_a"][0].get<std::string>());
  EXPECT_EQ(p.b.y.c1.to_decimal(), j["pi_b"][1][1].get<std::string>());
}

INSTANTIATE_TEST_SUITE_P(fixtures, fixture_test, ::testing::ValuesIn(circuits()));

}  // namespace
}  // namespace starzk::test
