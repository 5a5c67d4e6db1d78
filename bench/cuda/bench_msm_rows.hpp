// Row groups of the MSM benchmark (bench_msm.cpp) that several of its
// sections share: the phase rows of a profiled call, the witness-mix rows,
// and the rows of the MSM in pieces (STARZK_MSM_PIECES), the form a
// streamed key query takes: bases resident, streamed from page-locked host
// memory, and streamed with one window per digit group as msm_h runs under
// a 16 GB cap, with that call's phases.
#pragma once

#include <chrono>
#include <string>

#include "bench_util.hpp"

namespace starzk::gpu::bench {

// One more call with msm_tuning_t::profile set: rows <name>_phase_<phase>
// (ms; last column: the phase's share of the call).
template <class Run>
void phase_rows(const std::string& name, size_t n, void* scr, size_t bytes, Run run, msm_tuning_t t = {},
                bool outside = false) {
  msm_profile_t prof;
  t.profile = &prof;
  const auto t0 = std::chrono::steady_clock::now();
  run(t, scr, bytes);  // a profiled call waits for its stream at its end
  const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const double total = prof.total();
  if (outside) row(name + "_outside_phases", double(n), wall, wall - total);
  const std::pair<const char*, double> phases[] = {{"live", prof.live},
                                                   {"digits", prof.digits},
                                                   {"sort", prof.sort},
                                                   {"affine", prof.affine},
                                                   {"affine_sources", prof.affine_sources},
                                                   {"affine_forward", prof.affine_forward},
                                                   {"affine_tree", prof.affine_tree},
                                                   {"affine_backward", prof.affine_backward},
                                                   {"accumulate", prof.accumulate},
                                                   {"fold", prof.fold},
                                                   {"window_sums", prof.window_sums},
                                                   {"window_sums_first", prof.window_sums_first},
                                                   {"horner", prof.horner}};
  for (const auto& [what, ms] : phases) row(name + "_phase_" + what, double(n), ms, ms / total);
  row(name + "_window_bits", double(n), 0.0, double(prof.window_bits));
}

// Scalars of a generated witness's mix (fill_scalars kind 2) in place:
// rows <prefix>_witness (default form) and <prefix>_witness_xyzz (the lean
// form, no batch-affine levels, which the sector's witness MSMs take), with
// the lean form's phases.
template <class Run>
void witness_rows(const std::string& prefix, size_t n, int reps, double floor_ms, fr_t* d_scalars, uint64_t seed,
                  void* scr, size_t bytes, cudaStream_t s, Run run) {
  fill_scalars(d_scalars, n, 2, seed, s);
  const double ms = time_ms(s, reps, [&] { run({}, scr, bytes); });
  row(prefix + "_witness", double(n), ms, ms / floor_ms);
  msm_tuning_t lean;
  lean.affine_levels = 0;
  const double ms0 = time_ms(s, reps, [&] { run(lean, scr, bytes); });
  row(prefix + "_witness_xyzz", double(n), ms0, ms0 / floor_ms);
  phase_rows(prefix + "_witness_xyzz", n, scr, bytes, run, lean);
}

// STARZK_MSM_PIECES rows (file comment) for the random scalars in place.
inline void pieces_rows(size_t n, int reps, const g1_affine_t* d_bases, const fr_t* d_scalars, cudaStream_t s) {
  const std::vector<unsigned> pieces = env_list("STARZK_MSM_PIECES", {});
  if (pieces.empty()) return;
  pinned_t host(n * sizeof(g1_affine_t));
  check_cuda(cudaMemcpyAsync(host.p, d_bases, n * sizeof(g1_affine_t), cudaMemcpyDeviceToHost, s), "copy");
  check_cuda(cudaStreamSynchronize(s), "sync");
  device_buffer_t d_jac(sizeof(g1_jacobian_t));
  // The forms: bases resident, streamed, streamed with one window per
  // group (with its phases), then streamed with each of
  // STARZK_MSM_PIECES_GROUPS windows per group.
  struct form_t {
    std::string suffix;
    bool on_host;
    unsigned group_windows;
  };
  std::vector<form_t> forms = {{"_device", false, 0}, {"_host", true, 0}, {"_host_narrow", true, 1}};
  for (unsigned g : env_list("STARZK_MSM_PIECES_GROUPS", {})) forms.push_back({"_host_g" + std::to_string(g), true, g});
  for (unsigned k : pieces) {
    for (const form_t& f : forms) {
      msm_tuning_t tune;
      tune.group_windows = f.group_windows;
      const msm_pieces_t pc{(n + k - 1) / std::max(k, 1u), f.on_host};
      device_buffer_t scr(msm_pieces_scratch_bytes<g1_params>(n, false, pc, tune));
      const auto* bases = f.on_host ? static_cast<const g1_affine_t*>(host.p) : d_bases;
      auto run = [&](const msm_tuning_t& t, void* p, size_t bytes) {
        check_cuda(
            msm_pieces<g1_params>(d_jac.as<g1_jacobian_t>(), bases, d_scalars, n, msm_no_split, pc, p, bytes, s, t),
            "msm_pieces<g1_params>");
      };
      const double ms = time_ms(s, reps, [&] { run(tune, scr.get(), scr.size()); });
      const std::string name = "msm_g1_random_pieces" + std::to_string(k) + f.suffix;
      row(name, double(n), ms, double(scr.size()) / double(size_t(1) << 30));
      if (f.group_windows == 1) phase_rows(name, n, scr.get(), scr.size(), run, tune, true);
    }
  }
}

}  // namespace starzk::gpu::bench
