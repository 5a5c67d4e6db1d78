// Row groups of the MSM benchmark (bench_msm.cpp) that several of its
// sections share: the phase rows of a profiled call, the witness-mix rows,
// and the rows of the MSM in pieces (STARZK_MSM_PIECES), the form a
// streamed key query takes: bases resident, streamed from page-locked host
// memory, and streamed with one window per digit group as msm_h runs under
// a 16 GB cap, with that call's phases; the rows of a partition's four
// G1 MSMs streamed in one call (STARZK_MSM_BESIDE, cuda/msm_streamed.hpp);
// and the rows of several witnesses over one stream of bases
// (STARZK_MSM_SETS, msm_pieces_sets).
#pragma once

#include <chrono>
#include <cstring>
#include <memory>
#include <string>

#include "bench_util.hpp"
#include "cuda/msm_streamed.hpp"
#include "util/parallel.hpp"

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

// STARZK_MSM_FOLD_WAYS="2 8 32": the call of tuning t again with the chunk
// partials folded that many at a time (msm_tuning_t::fold_ways): rows
// <name>_fold<w> (last column: time over ms_ref, the row's at the default)
// and <name>_fold<w>_phase_fold (the folding's ms; last column its share).
template <class Run>
void fold_rows(const std::string& name, size_t n, int reps, double ms_ref, msm_tuning_t t, void* scr, size_t bytes,
               cudaStream_t s, Run run) {
  for (unsigned w : env_list("STARZK_MSM_FOLD_WAYS", {})) {
    t.fold_ways = w;
    t.profile = nullptr;
    const double ms = time_ms(s, reps, [&] { run(t, scr, bytes); });
    const std::string row_name = name + "_fold" + std::to_string(w);
    row(row_name, double(n), ms, ms / ms_ref);
    msm_profile_t prof;
    t.profile = &prof;
    run(t, scr, bytes);
    row(row_name + "_phase_fold", double(n), prof.fold, prof.fold / prof.total());
  }
}

// Scalars of a generated witness's mix (fill_scalars kind 2) in place:
// rows <prefix>_witness (default form) and <prefix>_witness_xyzz (the lean
// form, no batch-affine levels, which the sector's witness MSMs take), with
// the lean form's phases and its fold_rows.
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
  fold_rows(prefix + "_witness_xyzz", n, reps, ms0, lean, scr, bytes, s, run);
}

// The calling thread bound to its first allowed core while the object
// lives (bind = true; Linux), its affinity restored after.
class bound_caller_t {
 public:
  explicit bound_caller_t(bool bind) {
#if defined(__linux__)
    bound_ = bind && bind_thread_to_first_cpu(saved_);
#else
    (void)bind;
#endif
  }
  ~bound_caller_t() {
#if defined(__linux__)
    if (bound_) (void)pthread_setaffinity_np(pthread_self(), sizeof(saved_), &saved_);
#endif
  }
  bound_caller_t(const bound_caller_t&) = delete;
  bound_caller_t& operator=(const bound_caller_t&) = delete;

 private:
#if defined(__linux__)
  cpu_set_t saved_{};
#endif
  bool bound_ = false;
};

// STARZK_MSM_BESIDE="6:16 7:32n 10:8np" (H's pieces:the others' pieces, n:
// the others with one window per digit group too, p: their stream at the
// device's greatest priority, b: the calling thread bound to one core for
// the call, as a StarPU CUDA worker is, d: the witness queries each from a
// page-locked copy of its own, as L, A and B_g1 are, t: every query's
// phases timed, as under STARZK_MSM_PROFILE, so each piece's call waits
// for its stream at its end): msm_h and
// the three witness MSMs of a partition under a 16 GB cap, four queries of
// n terms streamed from page-locked host memory (the same bases here: the
// copies cost the same), H over the random scalars in place with one
// window per digit group, the others over a witness mix without
// batch-affine levels (the forms the sector's bodies take). First a row
// msm_g1_streamed_today: H in 5 pieces, then the three in 16 pieces each,
// one msm_pieces call each (the tasks of the chain); then per form a row
// msm_g1_beside_h<P0>_w<P>[n][p][b][d][t]: one msm_beside call (cuda/msm_streamed.hpp),
// the witness queries on a second stream beside H. Last column: the
// scratch, GiB. A row ..._differs (1) follows a call whose four results
// are not those of the calls one by one.
inline void beside_rows(size_t n, int reps, const g1_affine_t* host, const fr_t* d_random, cudaStream_t s) {
  const std::vector<std::string> forms = env_words("STARZK_MSM_BESIDE");
  if (forms.empty()) return;
  device_buffer_t d_w(n * sizeof(fr_t)), d_out(8 * sizeof(g1_jacobian_t));
  fill_scalars(d_w.as<fr_t>(), n, 2, 2468, s);
  msm_tuning_t narrow, lean;
  narrow.group_windows = 1;
  lean.affine_levels = 0;
  msm_streamed_query_t<g1_params> q[4];
  for (int i = 0; i < 4; ++i)
    q[i] = {d_out.as<g1_jacobian_t>() + i, host, i == 0 ? d_random : d_w.as<fr_t>(), n, i == 0 ? narrow : lean};
  const double gib = double(size_t(1) << 30);
  auto pieces_of = [&](unsigned k) { return (n + k - 1) / std::max(k, 1u); };
  std::vector<std::unique_ptr<pinned_t>> copies;  // the witness queries' own bases, made for the first d form
  {
    size_t bytes = msm_pieces_scratch_bytes<g1_params>(n, false, {pieces_of(5), true}, narrow);
    bytes = std::max(bytes, msm_pieces_scratch_bytes<g1_params>(n, false, {pieces_of(16), true}, lean));
    device_buffer_t scr(bytes);
    const double ms = time_ms(s, reps, [&] {
      for (int i = 0; i < 4; ++i)
        check_cuda(msm_pieces<g1_params>(d_out.as<g1_jacobian_t>() + 4 + i, host, q[i].d_scalars, n, msm_no_split,
                                         {pieces_of(i == 0 ? 5 : 16), true}, scr.get(), bytes, s, q[i].tune),
                   "msm_pieces<g1_params>");
    });
    row("msm_g1_streamed_today", double(n), ms, double(bytes) / gib);
  }
  for (const std::string& f : forms) {
    const size_t colon = f.find(':');
    const unsigned p0 = unsigned(std::stoul(f.substr(0, colon)));
    const unsigned p = colon == std::string::npos ? 16u : unsigned(std::stoul(f.substr(colon + 1)));
    // Trailing letters: n, the witness queries with one window per digit
    // group too; p, their stream first; b, the caller bound to one core;
    // d, the witness queries from bases of their own; t, phases timed.
    const size_t letters =
        colon == std::string::npos ? std::string::npos : f.find_first_not_of("0123456789", colon + 1);
    const std::string flags = letters == std::string::npos ? "" : f.substr(letters);
    const bool one_window = flags.find('n') != std::string::npos;
    const msm_beside_form_t form{pieces_of(p0), pieces_of(p), flags.find('p') != std::string::npos};
    const bool distinct = flags.find('d') != std::string::npos;
    while (distinct && copies.size() < 3) {
      copies.push_back(std::make_unique<pinned_t>(n * sizeof(g1_affine_t)));
      std::memcpy(copies.back()->p, host, n * sizeof(g1_affine_t));
    }
    for (int i = 1; i < 4; ++i) {
      q[i].tune.group_windows = one_window ? 1 : 0;
      q[i].host_bases = distinct ? static_cast<const g1_affine_t*>(copies[size_t(i) - 1]->p) : host;
    }
    const bool timed = flags.find('t') != std::string::npos;
    msm_profile_t prof[4];
    for (int i = 0; i < 4; ++i) q[i].tune.profile = timed ? &prof[i] : nullptr;
    const size_t bytes = msm_beside_scratch_bytes<g1_params>(q, 4, form);
    device_buffer_t scr(bytes);
    const bool bound = flags.find('b') != std::string::npos;
    const bound_caller_t binding(bound);
    const double ms = time_ms(
        s, reps, [&] { check_cuda(msm_beside<g1_params>(q, 4, form, scr.get(), bytes, s), "msm_beside<g1_params>"); });
    const std::string name = "msm_g1_beside_h" + std::to_string(p0) + "_w" + std::to_string(p) +
                             (one_window ? "n" : "") + (form.others_first ? "p" : "") + (bound ? "b" : "") +
                             (distinct ? "d" : "") + (timed ? "t" : "");
    row(name, double(n), ms, double(bytes) / gib);
    std::vector<g1_jacobian_t> out(8);
    check_cuda(cudaMemcpyAsync(out.data(), d_out.get(), out.size() * sizeof(g1_jacobian_t), cudaMemcpyDeviceToHost, s),
               "copy");
    check_cuda(cudaStreamSynchronize(s), "sync");
    for (int i = 0; i < 4; ++i)
      if (!(out[i].to_affine() == out[4 + i].to_affine())) {
        row(name + "_differs", double(n), 0.0, 1.0);
        break;
      }
  }
}

// STARZK_MSM_PIECES rows (file comment) for the random scalars in place,
// then the STARZK_MSM_BESIDE ones.
inline void pieces_rows(size_t n, int reps, const g1_affine_t* d_bases, const fr_t* d_scalars, cudaStream_t s) {
  const std::vector<unsigned> pieces = env_list("STARZK_MSM_PIECES", {});
  if (pieces.empty() && env_words("STARZK_MSM_BESIDE").empty()) return;
  pinned_t host(n * sizeof(g1_affine_t));
  check_cuda(cudaMemcpyAsync(host.p, d_bases, n * sizeof(g1_affine_t), cudaMemcpyDeviceToHost, s), "copy");
  check_cuda(cudaStreamSynchronize(s), "sync");
  device_buffer_t d_jac(sizeof(g1_jacobian_t));
  // The forms: bases resident, streamed, streamed with one window per
  // group (with its phases), then streamed with each of
  // STARZK_MSM_PIECES_GROUPS windows per group, then each of those group
  // widths (one included) with each of STARZK_MSM_PIECES_WINDOWS bits
  // instead of the model's window for the piece, then each group width
  // with exactly STARZK_MSM_PIECES_LEVELS batch-affine levels instead of
  // the default's count (all with their phases).
  struct form_t {
    std::string suffix;
    bool on_host;
    unsigned group_windows, window_bits;
    int affine_levels = -1;
  };
  std::vector<form_t> forms = {{"_device", false, 0, 0}, {"_host", true, 0, 0}, {"_host_narrow", true, 1, 0}};
  const std::vector<unsigned> groups = env_list("STARZK_MSM_PIECES_GROUPS", {});
  for (unsigned g : groups) forms.push_back({"_host_g" + std::to_string(g), true, g, 0});
  for (unsigned c : env_list("STARZK_MSM_PIECES_WINDOWS", {})) {
    forms.push_back({"_host_narrow_c" + std::to_string(c), true, 1, c});
    for (unsigned g : groups) forms.push_back({"_host_g" + std::to_string(g) + "_c" + std::to_string(c), true, g, c});
  }
  for (unsigned L : env_list("STARZK_MSM_PIECES_LEVELS", {}))
    for (unsigned g : groups)
      forms.push_back({"_host_g" + std::to_string(g) + "_L" + std::to_string(L), true, g, 0, int(L)});
  for (unsigned k : pieces) {
    for (const form_t& f : forms) {
      msm_tuning_t tune;
      tune.group_windows = f.group_windows;
      tune.window_bits = f.window_bits;
      tune.affine_levels = f.affine_levels;
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
      if (f.on_host && f.group_windows > 0) phase_rows(name, n, scr.get(), scr.size(), run, tune, true);
    }
  }
  beside_rows(n, reps, static_cast<const g1_affine_t*>(host.p), d_scalars, s);
}

// STARZK_MSM_SETS="2 4": k witness vectors of a generated witness's mix
// over bases streamed from page-locked host memory in 16 pieces, without
// batch-affine levels (a 16 GB card's witness MSMs), as one
// msm_pieces_sets call: rows <prefix>_witness_pieces16_sets<k> (last
// column: the call over k one-vector calls of the same form, whose mean is
// <prefix>_witness_pieces16_sets1), and <prefix>_witness_pieces16_sets<k>_differs
// where a vector's point (of either form) differs from its one-vector
// call's; each k again with every piece reducing its own buckets
// (msm_pieces_t::shared_buckets off): rows ..._sets<k>_own, last column
// own over shared.
template <class P>
void sets_rows(const std::string& prefix, size_t n, int reps, const affine_t<P>* d_bases, cudaStream_t s) {
  const std::vector<unsigned> sets = env_list("STARZK_MSM_SETS", {});
  if (sets.empty()) return;
  const unsigned most = *std::max_element(sets.begin(), sets.end());
  pinned_t host(n * sizeof(affine_t<P>));
  check_cuda(cudaMemcpyAsync(host.p, d_bases, n * sizeof(affine_t<P>), cudaMemcpyDeviceToHost, s), "copy");
  std::vector<device_buffer_t> w;
  std::vector<const fr_t*> wp;
  for (unsigned i = 0; i < most; ++i) {
    w.emplace_back(n * sizeof(fr_t));
    fill_scalars(w.back().as<fr_t>(), n, 2, 4321 + i, s);
    wp.push_back(w.back().as<fr_t>());
  }
  device_buffer_t d_out(3 * most * sizeof(jacobian_t<P>));  // k-vector call, one-vector calls, own buckets
  check_cuda(cudaStreamSynchronize(s), "sync");
  msm_tuning_t lean;
  lean.affine_levels = 0;
  const auto* bases = static_cast<const affine_t<P>*>(host.p);
  const std::string name = prefix + "_witness_pieces16_sets";
  // One call over the k vectors v[0..k) into out[0..k).
  auto timed = [&](unsigned k, jacobian_t<P>* out, const fr_t* const* v, bool shared = true) {
    const msm_pieces_t pc{(n + 15) / 16, true, false, k, shared};
    device_buffer_t scr(msm_pieces_scratch_bytes<P>(n, false, pc, lean));
    return time_ms(s, reps, [&] {
      check_cuda(msm_pieces_sets<P>(out, bases, v, n, msm_no_split, pc, scr.get(), scr.size(), s, lean),
                 "msm_pieces_sets");
    });
  };
  // Each vector alone, into the middle third of d_out: the mean is sets1.
  double one = 0;
  for (unsigned i = 0; i < most; ++i) one += timed(1, d_out.as<jacobian_t<P>>() + most + i, &wp[i]) / most;
  row(name + "1", double(n), one, 1.0);
  std::vector<jacobian_t<P>> out(3 * most);
  for (unsigned k : sets) {
    if (k == 0) continue;
    const double ms = timed(k, d_out.as<jacobian_t<P>>(), wp.data());
    row(name + std::to_string(k), double(n), ms, ms / (k * one));
    const double own = timed(k, d_out.as<jacobian_t<P>>() + 2 * most, wp.data(), false);
    row(name + std::to_string(k) + "_own", double(n), own, own / ms);
    check_cuda(cudaMemcpyAsync(out.data(), d_out.get(), out.size() * sizeof(jacobian_t<P>), cudaMemcpyDeviceToHost, s),
               "copy");
    check_cuda(cudaStreamSynchronize(s), "sync");
    for (unsigned i = 0; i < k; ++i)
      if (!(out[i].to_affine() == out[most + i].to_affine()) ||
          !(out[2 * most + i].to_affine() == out[most + i].to_affine())) {
        row(name + std::to_string(k) + "_differs", double(n), 0.0, 1.0);
        break;
      }
  }
}

}  // namespace starzk::gpu::bench
