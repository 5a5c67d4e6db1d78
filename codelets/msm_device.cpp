// msm_device.cpp: the MSM codelets' device memory (see msm_device.hpp).
#include "codelets/msm_device.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "codelets/activity.hpp"
#include "msm/msm_pieces.hpp"

#if STARZK_CODELETS_CUDA
#include "cuda/msm_streamed.hpp"
#include "cuda/starzk_cuda.hpp"
#endif

namespace starzk::codelets {

namespace {

// The batch-affine levels' gain on dense scalars (the planner's
// default_factor): 97.8 ms against 128.6 without them for a 2^24 G1 MSM of
// random scalars on the H200 (docs/benchmarks.md). The witness MSMs plan
// with 1: with boolean-heavy scalars most terms are zero or sit in one
// bucket, and the levels save less.
constexpr double dense_affine_factor = 0.76;

#if STARZK_CODELETS_CUDA
// The planner's two forms (msm_pieces.hpp), and the default form narrowed
// to one window per digit group (the sort arrays of one window; msm_plan.cuh).
gpu::msm_tuning_t tuning(bool lean, bool narrow = false) {
  gpu::msm_tuning_t t;
  if (lean) t.affine_levels = 0;  // no batch-affine levels, none of their arrays
  if (narrow) t.group_windows = 1;
  return t;
}

template <class P>
uint64_t scratch_bytes(size_t n, bool split, size_t piece, bool streamed, const gpu::msm_tuning_t& t, unsigned sets = 1,
                       bool shared = true) {
  return gpu::msm_pieces_scratch_bytes<P>(n, split, gpu::msm_pieces_t{piece, streamed, false, sets, shared}, t);
}

// Where msm_pieces_sets writes the results of two vectors side by side,
// past the scratch it plans (the codelet's results are two buffers).
uint64_t pair_out_offset(uint64_t plan_bytes) { return (plan_bytes + 255) / 256 * 256; }
template <class P>
uint64_t pair_out_bytes(unsigned sets) {
  return sets > 1 ? 256 + sets * sizeof(jacobian_t<P>) : 0;
}

// The tuning a body runs a form with under `budget`. Where the default
// form's usual groups do not fit: for dense scalars the default with the
// most windows per group that fit (8, 4, 2, then 1; only 1 where `regroup`
// is off), so that a budget a little short of the whole MSM still takes
// it in one piece; for boolean-heavy ones the lean form, because narrow
// groups make their batch-affine form slower than no levels at all
// (docs/benchmarks.md: default < lean < narrow at 2^27).
template <class P>
gpu::msm_tuning_t form_tuning(size_t n, bool split, size_t piece, bool streamed, bool lean, bool dense, uint64_t budget,
                              unsigned sets = 1, bool shared = true, bool regroup = false) {
  if (lean) return tuning(true);
  auto fits = [&](const gpu::msm_tuning_t& t) {
    return scratch_bytes<P>(n, split, piece, streamed, t, sets, shared) + pair_out_bytes<P>(sets) <= budget;
  };
  const gpu::msm_tuning_t wide = tuning(false);
  if (fits(wide)) return wide;
  if (!dense) return tuning(true);
  for (unsigned g = 8; regroup && g > 1; g /= 2) {
    gpu::msm_tuning_t t = wide;
    t.group_windows = g;
    if (fits(t)) return t;
  }
  return tuning(false, true);
}

// The form's name in the plan line (note_pieces_plan).
std::string form_name(const gpu::msm_tuning_t& t) {
  if (t.affine_levels == 0) return "lean";
  if (t.group_windows == 0) return "batch-affine";
  if (t.group_windows == 1) return "batch-affine, one window per group";
  return "batch-affine, " + std::to_string(t.group_windows) + " windows per group";
}
#endif

}  // namespace

msm_shape_t msm_query_shape(const proving_key_t& pk, int q) {
  if (q == msm_query_count) return {true, pk.b_g2.size(), false};
  return {false, msm_query_bases(pk, msm_query_t(q)).size(), false};
}

uint64_t msm_scratch_bytes(const msm_shape_t& m, size_t piece, bool streamed, bool lean) {
#if STARZK_CODELETS_CUDA
  return m.g2 ? scratch_bytes<g2_params>(m.n, m.split, piece, streamed, tuning(lean))
              : scratch_bytes<g1_params>(m.n, m.split, piece, streamed, tuning(lean));
#else
  (void)m, (void)piece, (void)streamed, (void)lean;
  return 0;
#endif
}

uint64_t msm_min_scratch_bytes(const msm_shape_t& m, bool streamed) {
  return msm_scratch_bytes(m, msm_smallest_piece(m.n, msm_min_piece), streamed, true);
}

namespace detail {

bool cuda_worker_can_hold(unsigned worker, const starpu_task* task, const msm_device_t& d, uint64_t scratch_max) {
  if (starpu_worker_get_type(int(worker)) != STARPU_CUDA_WORKER) return true;
  if (pinned_to_cuda(task)) return true;  // set_placement: nowhere else to go
  if (d.min_scratch == 0) return true;    // no plan (sizes unknown)
  if (d.min_scratch > scratch_max) return false;
  const starpu_ssize_t total = starpu_memory_get_total(starpu_worker_get_memory_node(worker));
  return total <= 0 || d.min_scratch + d.buffer_bytes <= uint64_t(total);
}

#if STARZK_CODELETS_CUDA

template <class P>
bool run_device_msm(const device_msm_t<P>& m, uint64_t scratch_max) {
  const bool split = m.split_from != gpu::msm_no_split;
  const uint64_t room = worker_scratch_room();
  uint64_t budget = std::min<uint64_t>(scratch_max, room);
  const unsigned sets = m.sets();
  bool shared = m.shared_buckets;
  auto form = [&](size_t piece, bool lean, bool sh) {
    return form_tuning<P>(m.n, split, piece, m.streamed, lean, m.dense, budget, sets, sh, m.regroup);
  };
  // A form and its bytes, the pair's two results side by side past the
  // planned scratch.
  auto form_bytes = [&](size_t piece, bool lean, bool sh) -> std::pair<gpu::msm_tuning_t, uint64_t> {
    const gpu::msm_tuning_t t = form(piece, lean, sh);
    const uint64_t b = scratch_bytes<P>(m.n, split, piece, m.streamed, t, sets, sh);
    return {t, sets > 1 ? pair_out_offset(b) + pair_out_bytes<P>(sets) : b};
  };
  auto bytes = [&](size_t piece, bool lean, bool sh) { return form_bytes(piece, lean, sh).second; };
  for (;;) {
    // Shared buckets where their set costs no piece more (msm_pieces.hpp;
    // msm_h under 16 GB keeps its own: the budget sets its pieces).
    msm_pieces_plan_t plan;
    std::tie(plan, shared) = plan_msm_pieces_sharing(m.n, budget, msm_min_piece, m.dense ? dense_affine_factor : 1.0,
                                                     bytes, m.shared_buckets, m.max_piece);
    if (!plan.fits) return false;
    if (m.regroup && m.dense)  // more pieces where wider digit groups then make fewer passes
      plan = msm_pieces_regroup(m.n, plan, msm_min_piece, [&](size_t piece) -> msm_form_fit_t {
        const auto [t, b] = form_bytes(piece, false, shared);
        if (b > budget) return {};
        return {b, gpu::msm_digit_groups<P>(msm_piece_terms(m.n, piece), t)};
      });
    gpu::msm_tuning_t tune = form(plan.piece, plan.lean, shared);
    gpu::msm_profile_t prof;
    if (m.profile) tune.profile = &prof;
    const std::string name = form_name(tune) + (shared && !split && plan.count > 1 ? ", shared buckets" : "");
    note_pieces_plan(m.phase, m.n, plan.piece, plan.count, name.c_str(), plan.bytes, budget, room, m.streamed);
    void* scratch = nullptr;
    if (plan.bytes > 0) {
      scratch = try_worker_scratch(size_t(plan.bytes), size_t(budget));
      if (scratch == nullptr) {  // less free than StarPU counted: half as much, planned again
        budget = plan.bytes / 2;
        continue;
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    const gpu::msm_pieces_t pieces{plan.piece, m.streamed, m.wait_each_piece, sets, shared};
    if (sets == 1) {
      check_cuda(gpu::msm_pieces<P>(m.d_out, m.bases, m.d_scalars, m.n, m.split_from, pieces, scratch,
                                    size_t(plan.bytes), worker_stream(), tune),
                 (std::string("gpu::msm_pieces<") + P::name + ">").c_str());
    } else {  // both results side by side past the MSM's scratch, then each to its buffer
      const uint64_t inner = scratch_bytes<P>(m.n, split, plan.piece, m.streamed, tune, sets, shared);
      auto* both = reinterpret_cast<jacobian_t<P>*>(static_cast<char*>(scratch) + pair_out_offset(inner));
      const fr_t* const vectors[2] = {m.d_scalars, m.d_scalars2};
      check_cuda(gpu::msm_pieces_sets<P>(both, m.bases, vectors, m.n, m.split_from, pieces, scratch, size_t(inner),
                                         worker_stream(), tune),
                 (std::string("gpu::msm_pieces_sets<") + P::name + ">").c_str());
      check_cuda(cudaMemcpyAsync(m.d_out, both, sizeof(jacobian_t<P>), cudaMemcpyDeviceToDevice, worker_stream()),
                 "cudaMemcpyAsync (MSM pair result)");
      check_cuda(cudaMemcpyAsync(m.d_out2, both + 1, sizeof(jacobian_t<P>), cudaMemcpyDeviceToDevice, worker_stream()),
                 "cudaMemcpyAsync (MSM pair result)");
    }
    // The bodies are synchronous (msm_device.hpp): the work is done when
    // they return.
    check_cuda(cudaStreamSynchronize(worker_stream()), "cudaStreamSynchronize (MSM)");
    if (m.profile) {
      const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      note_msm_profile(m.phase, m.label, m.n, plan.count, wall, prof);
    }
    return true;
  }
}

bool run_device_msms_together(const device_msm_t<g1_params> (&m)[msm_query_count], uint64_t scratch_max) {
  const uint64_t room = worker_scratch_room();
  uint64_t budget = std::min<uint64_t>(scratch_max, room);
  gpu::msm_streamed_query_t<g1_params> q[msm_query_count];
  size_t others = 0;  // the witness queries' longest
  for (int i = 0; i < msm_query_count; ++i) {
    // The witness queries without batch-affine levels and with one window
    // per digit group: their windows above the first are nearly empty, and
    // the narrow sort arrays leave the scratch to their staging buffers.
    q[i] = {m[i].d_out, m[i].bases, m[i].d_scalars, m[i].n, tuning(i != 0, i != 0)};
    if (i > 0) others = std::max(others, m[i].n);
  }
  const auto rest_bytes = [&](size_t piece) {
    uint64_t r = 0;
    for (int i = 1; i < msm_query_count; ++i)
      r = std::max<uint64_t>(r, scratch_bytes<g1_params>(m[i].n, false, piece, true, q[i].tune));
    return r;
  };
  for (;;) {
    // The witness queries' pieces: an eighth of the longest, halved while
    // their scratch takes more than half the budget: each piece has fixed
    // costs that its two staging buffers hide only in part, so sixteenths
    // gain nothing over one task per query, and H in more pieces costs
    // less (docs/benchmarks.md, "The four G1 MSMs beside each other" and
    // "... in the 16 GB sector"). Their stream runs at the device's
    // greatest priority.
    size_t piece = std::max<size_t>(msm_ceil_div(std::max<size_t>(others, 1), 8), 1);
    while (rest_bytes(piece) > budget / 2 && piece / 2 >= msm_min_piece) piece /= 2;
    const uint64_t rest = rest_bytes(piece);
    if (rest >= budget) return false;
    // H: the fewest pieces that fit the rest of the budget (its two
    // staging buffers included), as run_device_msm plans them.
    const uint64_t left = (budget - rest) / 256 * 256;
    auto h_form = [&](size_t p, bool lean) {
      return form_tuning<g1_params>(m[0].n, false, p, true, lean, m[0].dense, left);
    };
    const msm_pieces_plan_t plan = plan_msm_pieces(
        m[0].n, left, msm_min_piece, m[0].dense ? dense_affine_factor : 1.0,
        [&](size_t p, bool lean) { return scratch_bytes<g1_params>(m[0].n, false, p, true, h_form(p, lean)); });
    if (!plan.fits) return false;
    q[0].tune = h_form(plan.piece, plan.lean);
    gpu::msm_profile_t prof[msm_query_count];
    if (m[0].profile)
      for (int i = 0; i < msm_query_count; ++i) q[i].tune.profile = &prof[i];
    const gpu::msm_beside_form_t beside{plan.piece, piece, true, m[0].wait_each_piece};
    const uint64_t bytes = gpu::msm_beside_scratch_bytes<g1_params>(q, msm_query_count, beside);
    const std::string form =
        std::string("H ") + form_name(q[0].tune) + ", L A B_g1 beside it in pieces of " + std::to_string(piece);
    note_pieces_plan(msm_together_name, m[0].n, plan.piece, plan.count, form.c_str(), bytes, budget, room, true);
    void* scratch = try_worker_scratch(size_t(bytes), size_t(budget));
    if (scratch == nullptr) {  // less free than StarPU counted: half as much, planned again
      budget = bytes / 2;
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    check_cuda(gpu::msm_beside<g1_params>(q, msm_query_count, beside, scratch, size_t(bytes), worker_stream()),
               "gpu::msm_beside<G1>");
    check_cuda(cudaStreamSynchronize(worker_stream()), "cudaStreamSynchronize (MSM)");
    if (m[0].profile) {  // one line per query, each with the whole call's wall: they overlap
      const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      for (int i = 0; i < msm_query_count; ++i) {
        const std::string phase = std::string(msm_together_name) + " " + m[i].phase;
        note_msm_profile(phase.c_str(), m[i].label, m[i].n, i == 0 ? plan.count : msm_piece_count(m[i].n, piece), wall,
                         prof[i]);
      }
    }
    return true;
  }
}

template bool run_device_msm<g1_params>(const device_msm_t<g1_params>&, uint64_t);
template bool run_device_msm<g2_params>(const device_msm_t<g2_params>&, uint64_t);

void note_pieces_plan(const char* phase, size_t n, size_t piece, size_t count, const char* form, uint64_t bytes,
                      uint64_t budget, uint64_t room, bool streamed) {
  static std::mutex m;
  static std::set<std::string> said;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!said.insert(phase).second) return;
  }
  const double gib = double(uint64_t(1) << 30);
  char text[320];
  std::snprintf(text, sizeof text,
                "%s: %zu terms in %zu piece%s of %zu (%s form, bases %s), scratch %.2f GiB of a budget of %.2f GiB "
                "(free on the device: %.2f GiB; said once)",
                phase, n, count, count == 1 ? "" : "s", piece, form,
                streamed ? "streamed from host memory" : "resident", double(bytes) / gib, double(budget) / gib,
                double(room) / gib);
  report_note(text);
}

void note_msm_profile(const char* phase, const char* label, size_t n, size_t pieces, double wall_ms,
                      const gpu::msm_profile_t& prof) {
  char text[512];
  std::snprintf(text, sizeof text,
                "%s: %s: %zu terms in %zu piece%s, %.1f ms: live %.1f, digits %.1f, sort %.1f, batch-affine %.1f, "
                "accumulate %.1f, fold %.1f, window sums %.1f, Horner %.1f; outside the phases (copies of streamed "
                "bases waited for, host waits, launches) %.1f",
                label, phase, n, pieces, pieces == 1 ? "" : "s", wall_ms, prof.live, prof.digits, prof.sort,
                prof.affine, prof.accumulate, prof.fold, prof.window_sums, prof.horner, wall_ms - prof.total());
  report_note(text);
}

void note_host_fallback(const std::string& label, const char* phase, size_t n) {
  static std::atomic<bool> said{false};
  if (said.exchange(true)) return;
  report_note(label + ": " + phase + ": no device memory for the smallest MSM pieces (" + std::to_string(n) +
              " terms); computed on the host (said once)");
}

#endif

}  // namespace detail
}  // namespace starzk::codelets
