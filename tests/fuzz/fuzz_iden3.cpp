// Fuzz targets of the binary key, circuit and witness readers: .zkey,
// .r1cs, .wtns (iden3 containers, io/binfile.hpp) and bellman's .params.
//
// Each target reads as the CLI does (cli/inputs.cpp): a key with every
// point checked on its curve (the subgroup tests that follow in the CLI,
// groth16/key_validation.hpp, are arithmetic on points already decoded and
// would cut the executions per second tenfold); a .params with and without
// its circuit (the multiplier fixture's, whose densities the seeds were
// made with, fuzz_seeds.cpp); the verifying key alone as `verify --params`
// reads it. A key that passes is checked against the circuit as the prover
// does first (check_prover_inputs: counts, domain, w[0]).
#include <vector>

#include "fuzz_input.hpp"
#include "fuzz_targets.hpp"
#include "groth16/prover.hpp"
#include "io/params.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"

namespace starzk::fuzz {

namespace {

const r1cs_t& circuit() {
  static const r1cs_t cs = read_r1cs(STARZK_TEST_DATA "/fixtures/multiplier/circuit.r1cs");
  return cs;
}

const std::vector<fr_t>& witness() {
  static const std::vector<fr_t> w = read_wtns(STARZK_TEST_DATA "/fixtures/multiplier/witness.wtns");
  return w;
}

// What the prover does first with a key it is given: check it against the
// circuit and the witness (counts, domain, a snarkjs key's rows).
void use_key(const proving_key_t& pk) {
  accepts<prove_error>([&] { check_prover_inputs(pk, &circuit(), witness(), 1); });
}

void zkey(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.zkey");
  proving_key_t pk;
  if (accepts([&] { pk = read_zkey(p, zkey_read_options_t{.check = decode_check::on_curve}); })) use_key(pk);
  accepts([&] { (void)read_zkey_transcript(p); });
}

void r1cs(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.r1cs");
  r1cs_t cs;
  if (!accepts([&] { cs = read_r1cs(p); })) return;
  // What the reader returns must pass the writers' own shape check.
  check_r1cs_shape(p, cs);
}

void wtns(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.wtns");
  accepts([&] { (void)read_wtns(p); });
  accepts([&] { (void)read_wtns(p, circuit().n_vars); });
}

void params(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.params");
  const params_read_options_t o{.check = decode_check::on_curve, .threads = 1};
  accepts([&] { (void)scan_params(p); });
  proving_key_t pk;
  if (accepts([&] { pk = read_params(p, o); })) use_key(pk);
  if (accepts([&] { pk = read_params(p, circuit(), o); })) use_key(pk);
}

void params_vk(std::span<const uint8_t> in) {
  const auto p = write_scratch(in, "input.vk.params");
  accepts([&] { (void)read_params_vk(p); });
}

const target_t targets[] = {
    {"zkey", zkey}, {"r1cs", r1cs}, {"wtns", wtns}, {"params", params}, {"params_vk", params_vk},
};

}  // namespace

std::span<const target_t> iden3_targets() { return targets; }

}  // namespace starzk::fuzz
