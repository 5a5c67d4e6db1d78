// assemble.cpp: the assembly codelet (docs/prover.md step 5), a few scalar
// multiplications (STARZK_RC_LIGHT):
//   A  = α + A_msm + r·δ₁,  B = β₂ + B2_msm + s·δ₂,  B1 = β₁ + B1_msm + s·δ₁,
//   C  = L + H + s·A + r·B1 − r·s·δ₁
// with r, s fresh from the OS CSPRNG (groth16/random.hpp), drawn here so
// they live only inside this body; a test may fix them
// (partition_state_t::fixed_rs) to compare with prove_with_blinding byte
// for byte. Then, as the reference prover does, the proof is verified
// against the key's verifying key (one multi-pairing) and a proof that does
// not verify fails the partition: an invalid proof is never handed out.
//
// Buffers: 0..4 the MSM results h, l, a, b_g1, b_g2 (R), 5 the proof (W).
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "groth16/random.hpp"
#include "groth16/verifier.hpp"
#include "policies/resource_class.h"

namespace starzk::codelets {

namespace {

uint64_t assemble_size(const starpu_task* task) {
  return static_cast<const partition_state_t*>(task->cl_arg)->key.pk->n_public;
}

void assemble_cpu(void* /*buffers*/[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "assemble", [&] {
    const blinding_t rs = p.fixed_rs ? *p.fixed_rs : blinding_t{random_fr(), random_fr()};
    p.proof = assemble(*p.key.pk, p.msm, rs);
    if (p.verify && !verify(p.key.pk->vk, p.publics, p.proof))
      throw p.key.cs ? prove_error(proof_fails_in_batch_with_circuit, prove_input_t::key)
                     : prove_error(proof_fails_without_circuit, prove_input_t::witness);
  });
}

starpu_perfmodel assemble_model;

}  // namespace

starpu_codelet* assemble_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&assemble_size>(assemble_model, "starzk_assemble");
    c.cpu_funcs[0] = assemble_cpu;
    c.cpu_funcs_name[0] = "assemble_cpu";
    c.nbuffers = 6;
    for (int i = 0; i < 5; ++i) c.modes[i] = STARPU_R;
    c.modes[5] = STARPU_W;
    c.model = &assemble_model;
    c.name = "assemble";
    c.color = detail::color_assemble;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_LIGHT), true);
  (void)declared;
  return &cl;
}

}  // namespace starzk::codelets
