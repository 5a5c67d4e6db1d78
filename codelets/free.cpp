// free.cpp: the deallocation codelet (docs/prover.md step 6). It releases a
// partition's big host vectors (the witness, the prep_msm bitmaps and
// tails) as soon as the last task reading them is done. Releasing tens of
// GiB means munmap and TLB-shootdown storms that stall every core (cuzk
// phase 11), so it is STARZK_RC_DEALLOC and our policies run one at a time.
// The QAP rows a, b, c, where StarPU allocates them on a GPU, are its own
// memory: the DAG hands them back (starpu_data_invalidate_submit) after
// their last reader. Where they live in host memory they have home buffers
// (partition_state_t::rows) that this task releases with the witness. A
// witness or rows in reused page-locked buffers (partition_state_t::recycle,
// dag/witness_pool.hpp) go back to their pool rather than being freed.
//
// Buffers: 0 w, 1 prep, then a, b, c where they have home buffers, all
// STARPU_W: a write-only access waits for every earlier access (sequential
// consistency: the rows' invalidation after their last reader included)
// and makes StarPU fetch nothing. The body runs even when the partition
// failed (the memory must go either way) and never throws. After it, the
// handles point at released memory: the DAG unregisters them without
// coherency.
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
  for (std::vector<fr_t>* v : {&p.w, &p.rows[0], &p.rows[1], &p.rows[2]}) {
    if (p.recycle && !v->empty()) {  // a reused buffer goes back to its pool
      p.recycle(std::move(*v));
      v->clear();
    } else {
      release(*v);
    }
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
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // 2, or 5 with the rows (modes from the task)
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
  return {spmv_codelet(), spmv_passes_codelet(), ntt_h_codelet(),    ntt_h_passes_codelet(), prep_msm_codelet(),
          msm_codelet(),  b_g2_msm_codelet(),    assemble_codelet(), free_codelet()};
}

}  // namespace starzk::codelets
