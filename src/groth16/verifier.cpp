// Groth16 verification; see verifier.hpp.
#include "groth16/verifier.hpp"

#include <array>

#include "msm/pippenger.hpp"
#include "pairing/pairing.hpp"

namespace starzk {

namespace {

bool valid_point(const g1_affine_t& p) { return p.is_on_curve() && p.is_in_subgroup(); }
bool valid_point(const g2_affine_t& p) { return p.is_on_curve() && p.is_in_subgroup(); }

}  // namespace

bool verify(const verifying_key_t& vk, std::span<const fr_t> x, const proof_t& proof) {
  if (vk.ic.empty() || x.size() + 1 != vk.ic.size()) return false;
  if (!valid_point(proof.a) || !valid_point(proof.b) || !valid_point(proof.c)) return false;
  // IC_x = IC_0 + Σ x_i·IC_{i+1}: one MSM on this thread (a public input
  // is a full field element; hundreds of them, one scalar product each,
  // would cost more than the pairing).
  const std::span<const g1_affine_t> ic_terms = std::span<const g1_affine_t>(vk.ic).subspan(1);
  const g1_jacobian_t ic = msm_pippenger<g1_params>(ic_terms, x, msm_config_t{.threads = 1}).add_mixed(vk.ic[0]);
  const std::array<g1_affine_t, 4> p = {-proof.a, vk.alpha_g1, ic.to_affine(), proof.c};
  const std::array<g2_affine_t, 4> q = {proof.b, vk.beta_g2, vk.gamma_g2, vk.delta_g2};
  return multi_pairing(p, q).is_one();
}

fp12_t alpha_beta_pairing(const verifying_key_t& vk) { return pairing(vk.alpha_g1, vk.beta_g2); }

}  // namespace starzk
