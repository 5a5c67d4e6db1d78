// free.cpp: the deallocation codelet (docs/prover.md step 6). It releases a
// partition's big host vectors as soon as the last task reading them is
// done. Releasing tens of GiB means munmap and TLB-shootdown storms that
// stall every core (cuzk phase 11), so it is STARZK_RC_DEALLOC and our
// policies run one at a time.
//
// A partition has up to three free tasks, each naming what it releases
// (free_task_arg_t): where the rows a, b, c live in host memory (home
// buffers, partition_state_t::rows), b and c after the H phase and a after
// msm_h, so that the memory budget can admit the next partition's witness
// while this one's MSMs run (dag/batch.cpp); the witness and the prep_msm
// bitmaps and tails at the end. Rows StarPU allocates on a GPU are its own
// memory: the DAG hands them back (starpu_data_invalidate_submit) after
// their last reader. Vectors in reused page-locked buffers
// (partition_state_t::recycle, dag/witness_pool.hpp) go back to their pool
// rather than being freed.
//
// Buffers: what the task releases (w and prep, or the rows), all
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
  const auto& arg = *static_cast<const free_task_arg_t*>(task->cl_arg);
  return arg.part->key.pk->domain_size;
}

void free_cpu(void* /*buffers*/[], void* cl_arg) noexcept {
  const auto& arg = *static_cast<const free_task_arg_t*>(cl_arg);
  partition_state_t& p = *arg.part;
  using what = free_task_arg_t;
  const std::pair<unsigned, std::vector<fr_t>*> vectors[] = {
      {what::witness, &p.w}, {what::row_a, &p.rows[0]}, {what::row_b, &p.rows[1]}, {what::row_c, &p.rows[2]}};
  for (auto [bit, v] : vectors) {
    if (!(arg.what & bit)) continue;
    if (p.recycle && !v->empty()) {  // a reused buffer goes back to its pool
      p.recycle(std::move(*v));
      v->clear();
    } else {
      release(*v);
    }
  }
  if (arg.what & what::prep)
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
    c.nbuffers = STARPU_VARIABLE_NBUFFERS;  // w and prep, or rows (modes from the task)
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
  return {spmv_codelet(),     spmv_passes_codelet(), spmv_dev_codelet(), ntt_h_codelet(),    ntt_h_passes_codelet(),
          prep_msm_codelet(), msm_codelet(),         b_g2_msm_codelet(), assemble_codelet(), free_codelet()};
}

}  // namespace starzk::codelets
