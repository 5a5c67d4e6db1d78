// prep_msm.cpp: the prep_msm codelet (docs/prover.md step 3). It classifies the
// witness scalars once per partition for the split MSMs (msm/prep_msm.hpp):
//   prep.w   = prep_msm(w, n_public + 1)  for the A, B_g1 and B_g2 queries
//              (the constant wire and the inputs always go to the tail);
//   prep.aux = prep_msm(w_aux, 0)         for the L query.
// A streaming pass over the witness that writes a bitmap (n/8 bytes) and a
// gathered tail (36 bytes per entry): memory-bandwidth bound
// (STARZK_RC_MEMORY_HEAVY), single-threaded in cuzk (1.9 s per partition).
// Only the CPU MSM bodies read the result, so a batch with CUDA workers
// submits no prep_msm task; the body is partition_state_t::cpu_prep, which a
// CPU MSM body also calls when the task is absent (dag/batch.hpp).
//
// Buffers: 0 w (R), 1 prep (W, a variable handle on the partition's
// prep_pair_t). The body also stores the bytes the result holds in
// partition_state_t::prep_bytes, so the memory budget can give back what it
// reserved beyond that (prep_msm_max_bytes).
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "msm/batch_add.hpp"
#include "policies/resource_class.h"

namespace starzk::codelets {

namespace {

uint64_t prep_msm_size(const starpu_task* task) {
  return static_cast<const partition_state_t*>(task->cl_arg)->key.pk->n_vars;
}

void prep_msm_cpu(void* buffers[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  guarded(p, "prep_msm", [&] {
    detail::expect_home(buffers[0], p.w.data(), "w");
    p.cpu_prep(p.memory_threads());
  });
}

starpu_perfmodel prep_msm_model;

}  // namespace

uint64_t prep_msm_bytes(const prep_msm_t& p) {
  return p.ones.capacity() * sizeof(uint64_t) + p.tail_index.capacity() * sizeof(uint32_t) +
         p.tail_scalars.capacity() * sizeof(fr_t);
}

uint64_t prep_msm_max_bytes(uint64_t n_vars, uint64_t n_public) {
  const uint64_t n_aux = n_vars > n_public + 1 ? n_vars - n_public - 1 : 0;
  const uint64_t per_entry = sizeof(uint32_t) + sizeof(fr_t);  // a tail entry: 36 bytes
  return (bitmap_words(n_vars) + bitmap_words(n_aux)) * sizeof(uint64_t) + (n_vars + n_aux) * per_entry;
}

double prep_msm_flops(const partition_state_t& p) { return 2.0 * double(p.key.pk->n_vars); }

starpu_codelet* prep_msm_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&prep_msm_size>(prep_msm_model, "starzk_prep_msm");
    c.cpu_funcs[0] = prep_msm_cpu;
    c.cpu_funcs_name[0] = "prep_msm_cpu";
    c.nbuffers = 2;
    c.modes[0] = STARPU_R;
    c.modes[1] = STARPU_W;
    c.model = &prep_msm_model;
    c.name = "prep_msm";
    c.color = detail::color_prep_msm;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY), true);
  (void)declared;
  return &cl;
}

}  // namespace starzk::codelets
