// Multi-scalar multiplication on G1 and G2, sum_i s_i·P_i, by Pippenger's
// bucket method with signed windows, sorted buckets, batch-affine levels
// and XYZZ accumulation.
// One implementation: the point kernels and the driver are templates over a
// curve bundle (msm_curve.cuh): msm<P> and msm_scratch_bytes<P>
// (starzk_cuda.hpp), instantiated for G1 and G2 at the bottom;
// the digit, sort and bucket-bound kernels do not depend on the curve.
//
//  0. live terms: the indices of the m terms whose scalar is not zero and
//     whose skip bit is clear, in order (cub::DeviceSelect). m comes back to
//     the host (the call's wait: the sort sizes depend on it), and
//     steps 1-2 run on m terms, not n. A boolean-heavy witness has few:
//     after the prep_msm split (ones skipped) about a tenth. The same pass
//     counts each window's non-zero digits (step 1's digits, one ballot per
//     window and warp), and they come back with m: they size the sorts, the
//     window groups and the batch-affine levels. The pass also counts the
//     live scalars by bit length; with the window left to the model, a
//     window better suited to them replaces the model's (0b below). Each
//     live term is flagged short (fewer than c bits: no digit above
//     window 0) or long, and where the long ones are few (at most n/16, a
//     witness's ~1.4%) and some window above 0 is sparse, their indices are
//     listed apart (0c), so that step 1 cuts those windows from the long
//     scalars only instead of from every live term in every group.
//  1. digits: each live scalar leaves Montgomery form (one Fr product) and is
//     cut into W = ceil(256/c) signed c-bit digits d in [-2^(c-1), 2^(c-1)]
//     (d > 2^(c-1) becomes d - 2^c with a carry into the next window; the top
//     window holds at most c-1 bits of a 255-bit scalar, so no carry is left).
//     Key = |d| (bucket), value = point index | sign << 31. In a window where
//     at least an eighth of the digits are zero (step 0 counted them: a
//     boolean-heavy witness has few non-zero digits above window 0) only the
//     non-zero ones are written, each block taking its places with one
//     atomic per window; elsewhere every live term's digit is written, a
//     zero digit with key 0, a bucket nobody reads.
//  2. sort: per window, the (key, value) pairs written by key
//     (cub::DeviceRadixSort, c key bits), so each bucket is one contiguous
//     run; a kernel marks where each run starts and ends.
//  3a. batch-affine levels (msm_affine.cu): each level halves every
//     bucket's run, adding its points in pairs with affine formulas whose
//     inversions are shared by the whole level (about 6 Fp products per sum
//     instead of 10). A level runs while it has at least 3·2^20 sums to make
//     and the mean run still has two points; the XYZZ steps below finish
//     the last level's points.
//  3. accumulate: runs are cut into chunks of `chunk` entries; one thread per
//     chunk sums its points with madd-2008-s (8M + 2S), negating y for
//     negative digits. Chunk offsets come from an exclusive scan of
//     ceil(count/chunk) per bucket. Buckets with more than one chunk (a
//     boolean-heavy witness puts most points in window 0, bucket 1) are
//     folded in place, `ways` partials per thread and step (the tuning's
//     fold_ways), each step reading the previous one's sums at stride
//     ways^(l-1), until every bucket's sum sits at its first partial:
//     ceil(log_ways(n/chunk)) steps, so the work stays balanced whatever
//     the scalar distribution, a bucket already summed costs no copy, and
//     a huge bucket's last steps are short chains (latency), not `chunk`-
//     long ones.
//  4. window sums sum_b b·S_b, b = 1..K (K = 2^(c-1)), as a tree of short
//     running sums (msm_window_sums.cuh): level 0 runs the running-sum
//     trick over L0 buckets per thread, each level above folds 4 items
//     into one, ~2 additions per bucket in all and no chain longer than
//     ~2·L0 point operations. The levels above 0, short chains over few
//     items (latency), run on a second stream beside the next group's
//     steps 1-3; their buffers are kept apart from every phase's arrays.
//  5. windows: Horner, G = sum_w 2^(c w) G_w: c doublings (dbl-2008-s-1) per
//     window, in four lanes that share each step's products (point.cuh).
// Steps 1-4 run for a group of windows at a time (at most 2^28 entries, so
// the keys, values and partials of one group stay near 6 GiB whatever n is;
// at n = 2^27 and c = 20 that is 2 windows per group, 7 groups). With
// batch-affine levels a group also holds at most 2^27 non-zero digits (or n),
// whose point arrays take another ~9 GiB: random scalars at n = 2^24 run
// in two groups of 8 windows, a boolean-heavy witness still in one. Step 1
// recomputes the signed-digit carries from window 0 for each group (one Fr
// product and a few shifts per scalar: cheap next to a window's additions).
// Steps 0-2's kernels live in msm_digits.cuh. The level-1 accumulation, the
// hot loop, lives in msm_accumulate.cu (for G1 with the Fp product inlined),
// the folding in msm_fold.cu.
// The window c minimises W·(n + w·2^c) madd-equivalents, w = the curve's
// bucket_weight (G1 10, G2 8: msm_curve.cuh), unless the tuning fixes it.
// That model counts n additions in every window; after step 0 the live
// scalars' bit lengths give each window's additions, and where few scalars
// are long (a witness, mostly zeros and ones) a narrower window with far
// fewer buckets is taken if its plan fits the scratch (0b;
// plan_t::data_window in msm_plan.cuh). A G2 MSM needs twice the
// bytes per bucket partial (384 B); the key/value arrays do not change.
// The result is an XYZZ point written to device memory.
#include "cuda/msm_digits.cuh"
#include "cuda/msm_plan.cuh"
#include "cuda/msm_sink.cuh"

namespace starzk::gpu {

using namespace msm_detail;

template <class P>
unsigned msm_digit_groups(size_t n, const msm_tuning_t& tune) {
  if (n == 0) return 0;
  const plan_t p = plan_t::make(n, tune, curve_bundle_t<P>::bucket_weight, curve_bundle_t<P>::batch_affine);
  return (p.W + p.Wg - 1) / p.Wg;
}

template <class P>
size_t msm_scratch_bytes(size_t n, const msm_tuning_t& tune) {
  using C = curve_bundle_t<P>;
  if (n == 0) return 0;
  const plan_t p = plan_t::make(n, tune, C::bucket_weight, C::batch_affine);
  carve_t cv{nullptr};
  buffers_t<typename C::xyzz_type>::carve(cv, p);
  return cv.used;
}

// The whole MSM over the curve's bundle C (steps 1-5 of the file comment);
// with a sink (msm_sink.cuh) whose window is the call's, steps 4-5 give way
// to adding the buckets into the sink.
template <class P>
cudaError_t msm_body(xyzz_t<P>* d_result, const affine_t<P>* d_bases, const fr_t* d_scalars, size_t n, void* d_scratch,
                     size_t scratch_bytes, cudaStream_t s, const msm_tuning_t& tune, const uint32_t* d_skip,
                     msm_sink_t* sink) {
  using C = curve_bundle_t<P>;
  using X = typename C::xyzz_type;
  auto* result = reinterpret_cast<X*>(d_result);
  if (sink) sink->took = false;
  if (!d_result) return cudaErrorInvalidValue;
  if (n == 0) {
    set_infinity_kernel<X><<<1, 32, 0, s>>>(result);
    SZK_CHECK_LAUNCH();
    return cudaSuccess;
  }
  if (n >= (size_t(1) << 31) || !d_bases || !d_scalars || !d_scratch) return cudaErrorInvalidValue;
  if (tune.window_bits > 20 || (tune.window_bits != 0 && tune.window_bits < 2)) return cudaErrorInvalidValue;
  if (tune.block == 0 || tune.block > 128) return cudaErrorInvalidValue;
  if (tune.affine_levels < -1 || tune.affine_levels > 32) return cudaErrorInvalidValue;
  if (tune.fold_ways < 2 || tune.fold_ways > 1024) return cudaErrorInvalidValue;
  plan_t p = plan_t::make(n, tune, C::bucket_weight, C::batch_affine);
  carve_t cv{static_cast<char*>(d_scratch)};
  buffers_t<X> b = buffers_t<X>::carve(cv, p);
  if (cv.used > scratch_bytes) return cudaErrorInvalidValue;
  const auto* bases = reinterpret_cast<const typename C::affine_type*>(d_bases);
  const auto* scalars = reinterpret_cast<const dev_fr_t*>(d_scalars);
  phase_timer_t timer(tune.profile, s);
  SZK_TRY(timer.start());

  // 0: live terms, m of them, the non-zero digits per window and, where
  // the window is the model's, the live scalars' bit lengths (the call's
  // first wait).
  uint32_t* nonzero = b.live_count + 1;
  const bool choose = tune.window_bits == 0;
  SZK_TRY(cudaMemsetAsync(nonzero, 0, p.W * sizeof(uint32_t), s));
  SZK_TRY(cudaMemsetAsync(b.lengths, 0, scalar_bits * sizeof(uint32_t), s));
  live_kernel<<<grid_for(n, 256), 256, 0, s>>>(scalars, d_skip, n, p.c, p.W, b.live, nonzero, b.lengths);
  SZK_CHECK_LAUNCH();
  {
    size_t temp = p.select_temp;
    SZK_TRY(cub::DeviceSelect::Flagged(b.select_temp, temp, thrust::counting_iterator<uint32_t>(0), b.live, b.live_idx,
                                       b.live_count, int(n), s));
  }
  uint32_t counts[1 + max_windows] = {};  // m, then the non-zero digits per window
  uint32_t lengths[scalar_bits] = {};
  SZK_TRY(cudaMemcpyAsync(counts, b.live_count, (1 + p.W) * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
  SZK_TRY(cudaMemcpyAsync(lengths, b.lengths, sizeof lengths, cudaMemcpyDeviceToHost, s));
  SZK_TRY(cudaStreamSynchronize(s));
  const size_t m = counts[0];
  if (m == 0) {
    set_infinity_kernel<X><<<1, 32, 0, s>>>(result);
    SZK_CHECK_LAUNCH();
    return timer.finish();
  }
  // 0b: the window from the scalars' lengths (plan_t::data_window), the
  // cheapest whose plan fits the scratch; that plan finds step 0's live
  // indices in place, and its windows' digits are counted again (a second
  // wait).
  for (uint32_t tried = 0; choose;) {
    const unsigned c = p.data_window(lengths, m, tune, C::sparse_bucket_weight, C::group_weight, tried);
    if (c == p.c) break;
    msm_tuning_t narrower = tune;
    narrower.window_bits = c;
    const plan_t q = plan_t::make(n, narrower, C::bucket_weight, C::batch_affine);
    carve_t cq{static_cast<char*>(d_scratch)};
    const buffers_t<X> bq = buffers_t<X>::carve(cq, q);
    if (cq.used > scratch_bytes || bq.live_idx != b.live_idx || bq.live_count != b.live_count) {
      tried |= uint32_t(1) << c;
      continue;
    }
    p = q;
    b = bq;
    SZK_TRY(cudaMemsetAsync(nonzero, 0, p.W * sizeof(uint32_t), s));
    count_kernel<<<grid_for(m, 256), 256, 0, s>>>(scalars, b.live_idx, m, p.c, p.W, b.live, nonzero);
    SZK_CHECK_LAUNCH();
    SZK_TRY(cudaMemcpyAsync(counts + 1, nonzero, p.W * sizeof(uint32_t), cudaMemcpyDeviceToHost, s));
    SZK_TRY(cudaStreamSynchronize(s));
    break;
  }
  // 0c: the long live scalars (live_flag) listed apart, when the list has
  // room and some window above 0 is compacted: those windows' digits are
  // then cut from the long scalars only (step 1).
  size_t m_long = 0;
  for (unsigned t = p.c; t < scalar_bits; ++t) m_long += lengths[t];
  bool sparse_above = false;
  for (unsigned w = 1; w < p.W; ++w) sparse_above = sparse_above || compact_window(counts[1 + w], m);
  const bool long_apart = sparse_above && m_long <= p.long_cap;
  if (long_apart && m_long > 0) {
    size_t temp = p.select_temp;
    SZK_TRY(
        cub::DeviceSelect::If(b.select_temp, temp, b.live_idx, b.long_idx, b.long_count, int(m), is_long_t{b.live}, s));
  }
  if (tune.profile) {
    tune.profile->window_bits = p.c;
    tune.profile->long_terms = long_apart ? unsigned(m_long) : 0;
  }
  SZK_TRY(timer.mark(phase_timer_t::live));
  // The sink takes this call's buckets where it holds this window, or none
  // yet and this window's buckets fit its room.
  char* into = nullptr;
  if (sink && sink->buckets &&
      (sink->c == p.c || (sink->c == 0 && plan_t::window_buckets(p.c) * sizeof(X) <= sink->bytes))) {
    sink->c = p.c;
    into = static_cast<char*>(sink->buckets);
  }

  // Step 4's levels above 0 of a group run beside the next group's steps
  // 1-3 (msm_window_sums.cuh).
  window_sums_side_t side;
  for (unsigned w0 = 0, gw = 0; w0 < p.W; w0 += gw) {
    // Windows in this group: up to Wg, and with batch-affine levels no more
    // non-zero digits than their arrays take (a boolean-heavy witness has
    // few beyond window 0, so its windows still share one group).
    gw = 1;
    size_t group_nonzero = p.affine ? counts[1 + w0] : 0;
    while (gw < p.Wg && w0 + gw < p.W) {
      const size_t more = p.affine ? counts[1 + w0 + gw] : 0;
      if (group_nonzero + more > p.aff_entries) break;
      group_nonzero += more;
      ++gw;
    }
    const size_t entries = size_t(gw) * m, buckets = size_t(gw) * (p.K + 1);
    // 1-2: digits, sort per window, run boundaries. With the long list,
    // the group's last windows from wl on (wl >= 1, every one compacted)
    // are cut from the long scalars, the windows before wl from all live
    // ones.
    unsigned wl = w0 + gw;
    while (long_apart && wl > w0 && wl > 1 && compact_window(counts[wl], m)) --wl;
    bool compact = false;
    for (unsigned w = w0; w < wl; ++w) compact = compact || compact_window(counts[1 + w], m);
    if (compact || wl < w0 + gw) SZK_TRY(cudaMemsetAsync(b.cursor, 0, gw * sizeof(uint32_t), s));
    if (wl > w0) {
      if (compact)
        digits_kernel<true><<<grid_for(m, 256), 256, 0, s>>>(scalars, b.live_idx, m, m, p.c, w0, w0, wl, nonzero,
                                                             b.cursor, b.keys_in, b.vals_in);
      else
        digits_kernel<false><<<grid_for(m, 256), 256, 0, s>>>(scalars, b.live_idx, m, m, p.c, w0, w0, wl, nonzero,
                                                              b.cursor, b.keys_in, b.vals_in);
      SZK_CHECK_LAUNCH();
    }
    if (wl < w0 + gw && m_long > 0) {
      digits_kernel<true><<<grid_for(m_long, 256), 256, 0, s>>>(scalars, b.long_idx, m_long, m, p.c, w0, wl, w0 + gw,
                                                                nonzero, b.cursor, b.keys_in, b.vals_in);
      SZK_CHECK_LAUNCH();
    }
    SZK_TRY(timer.mark(phase_timer_t::digits));
    for (unsigned w = 0; w < gw; ++w) {
      size_t temp = p.sort_temp;
      const size_t o = size_t(w) * m, items = window_entries(counts + 1, w0 + w, m);
      if (items == 0) continue;
      SZK_TRY(cub::DeviceRadixSort::SortPairs(b.sort_temp, temp, b.keys_in + o, b.keys_out + o, b.vals_in + o,
                                              b.vals_out + o, int(items), 0, int(p.c), s));
    }
    SZK_TRY(cudaMemsetAsync(b.start, 0, buckets * sizeof(uint64_t), s));
    SZK_TRY(cudaMemsetAsync(b.end, 0, buckets * sizeof(uint64_t), s));
    bounds_kernel<<<grid_for(entries, 256), 256, 0, s>>>(b.keys_out, m, entries, w0, nonzero, p.K, b.start, b.end);
    SZK_CHECK_LAUNCH();
    SZK_TRY(timer.mark(phase_timer_t::sort));

    // 3a: batch-affine levels; then the XYZZ levels below finish the
    // last level's points, read through ident (vals_in, free after the sort).
    const typename C::affine_type* acc_bases = bases;
    const uint32_t* acc_vals = b.vals_out;
    if constexpr (C::batch_affine) {
      // (msm_affine.cu moves points as 16-byte vectors.)
      const bool aligned = reinterpret_cast<uintptr_t>(d_bases) % 16 == 0;
      const unsigned levels = aligned && group_nonzero > 0 ? p.affine_levels(tune, group_nonzero, gw) : 0;
      if (levels > 0) {
        const affine_levels_t al{bases,   b.vals_out,  b.start,     b.end,     buckets,   group_nonzero, p.K,
                                 levels,  b.pts_a,     b.pts_b,     b.pre,     b.tot,     b.work,        b.counts,
                                 b.off_b, b.scan_temp, p.scan_temp, b.vals_in, b.keys_in, &timer};
        SZK_TRY(run_affine_levels<C>(al, s));
        acc_bases = static_cast<const typename C::affine_type*>(levels % 2 == 1 ? b.pts_a : b.pts_b);
        acc_vals = b.vals_in;
        SZK_TRY(timer.mark(phase_timer_t::affine_sources));
      }
    }

    // 3: level 1 (points), then the folding steps (partials, in place:
    // each bucket's sum ends at parts[off_a[g]]).
    SZK_TRY(
        launch_chunk_offsets(b.start, b.end, buckets, p.K, p.chunk, b.counts, b.off_a, b.scan_temp, p.scan_temp, s));
    SZK_TRY(launch_accumulate_points<C>(acc_bases, acc_vals, b.start, b.end, b.off_a, buckets, p.chunk, b.parts,
                                        p.parts, p.block, s));
    SZK_TRY(timer.mark(phase_timer_t::accumulate));
    SZK_TRY(launch_fold(b.parts, b.off_a, b.counts, b.off_b, b.scan_temp, p.scan_temp, buckets, p.parts, p.fold_steps,
                        p.ways, p.block, s));
    SZK_TRY(timer.mark(phase_timer_t::fold));
    if (into) {  // the group's buckets into the sink's windows w0..w0+gw
      SZK_TRY(sink_add<P>(b.parts, b.off_a, buckets, into + size_t(w0) * (p.K + 1) * sizeof(X), s));
      continue;
    }

    // 4: window sums of the group, in the curve's accumulation types (G1:
    // Fp products in line, as the level-1 loop and Horner; same bytes).
    using XA = typename C::acc_xyzz_type;
    SZK_TRY(launch_window_sums<XA>(reinterpret_cast<const XA*>(b.parts), b.off_a, p.K, gw,
                                   reinterpret_cast<XA*>(b.sums), p.sum_cap, reinterpret_cast<XA*>(b.windows + w0),
                                   timer, s, &side, w0 + gw < p.W));
    SZK_TRY(timer.mark(phase_timer_t::window_sums));
  }
  if (into) {  // the sink's owner reduces it once, after the last piece
    sink->took = true;
    return timer.finish();
  }
  // 5: Horner over all windows: a chain of ~c·W doublings, so latency, not
  // throughput. Four lanes make the independent products of each step at
  // once (3 product latencies per doubling instead of 9); the curve's
  // in-line Fp products (G1) had earlier taken it from 2.64 to 2.27 ms at
  // c = 16 on the H200.
  using XF = typename C::acc_xyzz_type;  // same bytes as X
  SZK_TRY(side.join(s));
  horner_kernel<<<1, 32, 0, s>>>(reinterpret_cast<const XF*>(b.windows), p.W, p.c, reinterpret_cast<XF*>(result));
  SZK_CHECK_LAUNCH();
  SZK_TRY(timer.mark(phase_timer_t::horner));
  return timer.finish();
}

template <class P>
cudaError_t msm(xyzz_t<P>* d_result, const affine_t<P>* d_bases, const fr_t* d_scalars, size_t n, void* d_scratch,
                size_t scratch_bytes, cudaStream_t s, const msm_tuning_t& tune, const uint32_t* d_skip) {
  return msm_body<P>(d_result, d_bases, d_scalars, n, d_scratch, scratch_bytes, s, tune, d_skip, nullptr);
}

namespace msm_detail {
template <class P>
cudaError_t msm_into_sink(xyzz_t<P>* d_result, const affine_t<P>* d_bases, const fr_t* d_scalars, size_t n,
                          void* d_scratch, size_t scratch_bytes, cudaStream_t s, const msm_tuning_t& tune,
                          msm_sink_t* sink) {
  return msm_body<P>(d_result, d_bases, d_scalars, n, d_scratch, scratch_bytes, s, tune, nullptr, sink);
}
template cudaError_t msm_into_sink<g1_params>(g1_xyzz_t*, const g1_affine_t*, const fr_t*, size_t, void*, size_t,
                                              cudaStream_t, const msm_tuning_t&, msm_sink_t*);
template cudaError_t msm_into_sink<g2_params>(g2_xyzz_t*, const g2_affine_t*, const fr_t*, size_t, void*, size_t,
                                              cudaStream_t, const msm_tuning_t&, msm_sink_t*);
}  // namespace msm_detail

template unsigned msm_digit_groups<g1_params>(size_t, const msm_tuning_t&);
template unsigned msm_digit_groups<g2_params>(size_t, const msm_tuning_t&);
template size_t msm_scratch_bytes<g1_params>(size_t, const msm_tuning_t&);
template size_t msm_scratch_bytes<g2_params>(size_t, const msm_tuning_t&);
template cudaError_t msm<g1_params>(g1_xyzz_t*, const g1_affine_t*, const fr_t*, size_t, void*, size_t, cudaStream_t,
                                    const msm_tuning_t&, const uint32_t*);
template cudaError_t msm<g2_params>(g2_xyzz_t*, const g2_affine_t*, const fr_t*, size_t, void*, size_t, cudaStream_t,
                                    const msm_tuning_t&, const uint32_t*);

}  // namespace starzk::gpu
