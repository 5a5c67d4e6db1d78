// Optional phase timing of an MSM call (msm_tuning_t::profile): msm.cu marks
// the end of each phase of each window group, and the batch-affine levels
// (msm_affine.cu) mark the end of each of their passes, with a CUDA event on
// the call's stream; finish() waits for the last event and adds the gaps
// between consecutive events to the profile. Without a profile every call
// is a no-op, so the production path records nothing and never waits.
#pragma once

#include <vector>

#include "cuda/common.cuh"
#include "cuda/starzk_cuda.hpp"

namespace starzk::gpu::msm_detail {

class phase_timer_t {
 public:
  // The four affine_* phases are the parts of msm_profile_t::affine, the
  // two window_sums* ones those of window_sums.
  enum phase_t {
    live,
    digits,
    sort,
    affine_sources,
    affine_forward,
    affine_tree,
    affine_backward,
    accumulate,
    fold,
    window_sums_first,
    window_sums,
    horner
  };
  phase_timer_t(msm_profile_t* profile, cudaStream_t s) : profile_(profile), s_(s) {}
  phase_timer_t(const phase_timer_t&) = delete;
  phase_timer_t& operator=(const phase_timer_t&) = delete;
  ~phase_timer_t() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  bool on() const { return profile_ != nullptr; }
  cudaError_t start() { return record(-1); }
  cudaError_t mark(phase_t p) { return record(int(p)); }
  cudaError_t finish() {
    if (!profile_ || events_.empty()) return cudaSuccess;
    SZK_TRY(cudaEventSynchronize(events_.back()));
    msm_profile_t& f = *profile_;
    double* field[] = {&f.live,        &f.digits,          &f.sort,       &f.affine_sources, &f.affine_forward,
                       &f.affine_tree, &f.affine_backward, &f.accumulate, &f.fold,           &f.window_sums_first,
                       &f.window_sums, &f.horner};
    static_assert(sizeof field / sizeof field[0] == horner + 1, "one field per phase");
    for (size_t k = 1; k < events_.size(); ++k) {
      float ms = 0;
      SZK_TRY(cudaEventElapsedTime(&ms, events_[k - 1], events_[k]));
      *field[phases_[k]] += ms;
      if (phases_[k] >= affine_sources && phases_[k] <= affine_backward) f.affine += ms;
      if (phases_[k] == window_sums_first) f.window_sums += ms;
    }
    ++f.calls;
    return cudaSuccess;
  }

 private:
  cudaError_t record(int phase) {
    if (!profile_) return cudaSuccess;
    cudaEvent_t e;
    SZK_TRY(cudaEventCreate(&e));
    events_.push_back(e);
    phases_.push_back(phase);
    return cudaEventRecord(e, s_);
  }
  msm_profile_t* profile_;
  cudaStream_t s_;
  std::vector<cudaEvent_t> events_;
  std::vector<int> phases_;
};

}  // namespace starzk::gpu::msm_detail
