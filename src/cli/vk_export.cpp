// See vk_export.hpp. snarkjs orders the twelve Fp coefficients of an Fp12
// as c_i (Fp6 over w) . c_j (Fp2 over v) . c_k (Fp over u), index 6i+2j+k.
#include "cli/vk_export.hpp"

#include "groth16/verifier.hpp"
#include "io/vkey_json.hpp"

namespace starzk::cli {

void write_vkey_with_alphabeta(const std::filesystem::path& file, const verifying_key_t& vk) {
  const fp12_t e = alpha_beta_pairing(vk);
  alphabeta_12_t s;
  const fp6_t* six[2] = {&e.c0, &e.c1};
  for (int i = 0; i < 2; ++i) {
    const fp2_t* two[3] = {&six[i]->c0, &six[i]->c1, &six[i]->c2};
    for (int j = 0; j < 3; ++j) {
      s[6 * i + 2 * j] = two[j]->c0.to_decimal();
      s[6 * i + 2 * j + 1] = two[j]->c1.to_decimal();
    }
  }
  write_vkey_json(file, vk, s);
}

}  // namespace starzk::cli
