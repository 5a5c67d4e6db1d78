// test_inputs.cpp: see test_inputs.hpp.
#include "test_inputs.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>

#include "gen/filecoin_shape.hpp"
#include "groth16/setup.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace starzk::test {

namespace {

namespace fs = std::filesystem;

prove_case_t load_fixture(const std::string& name) {
  const fs::path dir = fs::path(STARZK_TEST_DATA) / "fixtures" / name;
  prove_case_t c;
  c.name = name;
  auto pk = std::make_shared<proving_key_t>(read_zkey(dir / "circuit.zkey"));
  c.cs = std::make_shared<const r1cs_t>(read_r1cs(dir / "circuit.r1cs"));
  c.witnesses.push_back(read_wtns(dir / "witness.wtns", pk->n_vars));
  c.pk = std::move(pk);
  return c;
}

prove_case_t make_generated(root_convention_t conv, const std::string& name) {
  static const gen_params_t params{.log2_constraints = 10, .n_public = 8, .seed = 0x5eed};
  static const std::shared_ptr<const r1cs_t> cs = std::make_shared<const r1cs_t>(generate_circuit(params, 2));
  prove_case_t c;
  c.name = name;
  c.cs = cs;
  std::mt19937_64 rng(0xda6 + int(conv));
  toxic_waste_t tw{};
  for (fr_t* x : {&tw.tau, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta}) *x = fr_t::random(rng);
  c.pk = std::make_shared<const proving_key_t>(setup(*cs, conv, tw, 2));
  for (uint64_t p = 0; p < 4; ++p) c.witnesses.push_back(generate_witness(params, *cs, p, 2));
  return c;
}

}  // namespace

std::vector<std::string> prove_case_names() { return {"multiplier", "bits", "mimc", "gen-bellman", "gen-snarkjs"}; }

const prove_case_t& prove_case(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, prove_case_t> cache;
  std::lock_guard<std::mutex> lk(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  prove_case_t c;
  if (name == "gen-bellman")
    c = make_generated(root_convention_t::bellman, name);
  else if (name == "gen-snarkjs")
    c = make_generated(root_convention_t::snarkjs, name);
  else
    c = load_fixture(name);
  return cache.emplace(name, std::move(c)).first->second;
}

blinding_t test_blinding(uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 1);
  return blinding_t{fr_t::random(rng), fr_t::random(rng)};
}

}  // namespace starzk::test
