// free.cpp: the deallocation codelet (docs/prover.md step 6). It releases a
// partition's big host vectors (the witness, the prep_msm bitmaps and
// tails) as soon as the last task reading them is done. Releasing tens of
// GiB means munmap and TLB-shootdown storms that stall every core (cuzk
// phase 11), so it is STARZK_RC_DEALLOC and our policies run one at a time.
// The QAP rows a, b, c are StarPU's own memory: the DAG hands them back to
// StarPU (starpu_data_invalidate_submit) after their last reader instead.
// A witness in a reused page-locked buffer (partition_state_t::recycle_w,
// dag/witness_pool.hpp) goes back to its pool rather than being freed.
//
// Buffers: 0 w, 1 prep, both STARPU_W: a write-only access waits for every
// earlier reader (sequential consistency) and makes StarPU fetch nothing.
// The body runs even when the partition failed (the memory must go either
// way) and never throws. After it, the handles point at released memory:
// the DAG unregisters them without coherency.
#include <starpu.h>

#include "codelets/codelet_common.hpp"
#include "codelets/codelets.hpp"
#include "policies/resource_class.h"

namespace starzk::codelets {

namespace {

template <class T>
void release(std::vector<T>& v) noexcept {
  std::vector<T>().swap(v);
}

uint64_t free_size(const starpu_task* task) {
  const auto& p = *static_cast<const partition_state_t*>(task->cl_arg);
  return p.key.pk->domain_size;
}

void free_cpu(void* /*buffers*/[], void* arg) noexcept {
  auto& p = *static_cast<partition_state_t*>(arg);
  if (p.recycle_w) {  // a reused buffer goes back to its pool
    p.recycle_w(std::move(p.w));
    p.w.clear();
  } else {
    release(p.w);
  }
  for (prep_msm_t* q : {&p.prep.w, &p.prep.aux}) {
    release(q->ones);
    release(q->tail_index);
    release(q->tail_scalars);
  }
}

starpu_perfmodel free_model;

}  // namespace

starpu_codelet* free_codelet() {
  static starpu_codelet cl = [] {
    starpu_codelet c;
    starpu_codelet_init(&c);
    detail::init_size_model<&free_size>(free_model, "starzk_free");
    c.cpu_funcs[0] = free_cpu;
    c.cpu_funcs_name[0] = "free_cpu";
    c.nbuffers = 2;
    for (int i = 0; i < 2; ++i) c.modes[i] = STARPU_W;
    c.model = &free_model;
    c.name = "free";
    c.color = detail::color_free;
    return c;
  }();
  static const bool declared = (starzk_codelet_set_class(&cl, STARZK_RC_DEALLOC), true);
  (void)declared;
  return &cl;
}

std::vector<starpu_codelet*> all_codelets() {
  return {spmv_codelet(), ntt_h_codelet(),    ntt_h_passes_codelet(), prep_msm_codelet(),
          msm_codelet(),  b_g2_msm_codelet(), assemble_codelet(),     free_codelet()};
}

}  // namespace starzk::codelets
