// MSM benchmarks on the H200, bases resident on the device, scalars random
// or boolean-heavy (45% zero, 45% one, 10% random). Prints CSV rows
// name,n,ms,ratio_to_floor.
//
// G1: n = 2^20, 2^22, 2^24, 2^26, 2^27 (or the log sizes given as
// arguments). The bases are distinct like a real SRS: k_i·G for random k_i
// (fixed_base<g1_params> on the device, to affine on all cores), min(n, 2^24) of
// them, tiled beyond (2^24 points are 1.5 GiB, far beyond the L2 cache).
// msm_g1_random_tiled64k: the random row over 2^16 distinct points tiled,
// the bases of the sessions before the seventh, which fit in the 50 MiB L2
// and make the gathers of the first level cache hits. Boolean-heavy scalars run through the plain MSM, the prep_msm
// split (batch add of the ones + tail MSM, bitmap given) and the codelets'
// one-call form msm_jacobian<g1_params> with split_from = 0 (bitmap built on the
// device, Jacobian result); msm_g1_bool_xyzz / msm_g2_bool_xyzz: the plain
// MSM without batch-affine levels. A row msm_g1_scratch_GiB per size gives the
// scratch of the split (last column, GiB), so the memory cap of the window
// groups shows.
// G2 (b_g2_msm): n = 2^16, 2^20, 2^22, 2^24 (STARZK_MSM_G2_LOGS), random and
// boolean-heavy through msm<g2_params>, boolean-heavy also through msm_jacobian
// with the split; msm_g2_scratch_GiB likewise; rows ..._xyzz: the random
// MSM and the split again without batch-affine levels.
// After each random and boolean-heavy row, rows <row>_phase_<phase>: one
// more call with the phases timed (msm_profile_t; last column = share), and
// <row>_window_bits (last column: the window c the call took).
// msm_g1_random_narrow / msm_g1_bool_narrow: the row again with one window
// per digit group (msm_tuning_t::group_windows = 1; last column: time over
// the row's), msm_g1_scratch_narrow_GiB its scratch.
// msm_g1_random_xyzz: the random row again without batch-affine levels
// (msm_tuning_t::affine_levels = 0), the bucket additions all madd-2008-s.
// STARZK_MSM_AFFINE_LEVELS="1 3 9": the random row with that many levels
// (rows msm_g1_random_L<k>, with their affine and XYZZ phases).
// STARZK_MSM_PIECES="1 8 19": the random row again cut into that many
// pieces (msm_pieces<g1_params>, the form of a streamed query), rows
// msm_g1_random_pieces<k>_device (bases resident: what cutting into pieces
// costs) and msm_g1_random_pieces<k>_host (bases in page-locked host
// memory, copied piece by piece under the MSM: what streaming adds); the
// last column is the scratch the call was given, GiB;
// msm_g1_random_pieces<k>_host_narrow: the streamed form with one window
// per digit group (what msm_h takes under a 16 GB cap), with its phase
// rows and _outside_phases (ms: the call's wall time; last column: what
// its phases leave out: copies waited for, host waits, launches);
// STARZK_MSM_PIECES_GROUPS="2 3": the streamed form again with that many
// windows per digit group (rows ..._host_g<g>, scratch in the last column);
// STARZK_MSM_PIECES_WINDOWS="18 20": the narrow streamed form and each
// STARZK_MSM_PIECES_GROUPS form with that window instead of the one the
// model picks for a piece (rows ..._host_narrow_c<bits>,
// ..._host_g<g>_c<bits>); all with their phase rows.
// STARZK_MSM_PIECES_LEVELS="5 6": each STARZK_MSM_PIECES_GROUPS form with
// exactly that many batch-affine levels (rows ..._host_g<g>_L<k>), where
// the default stops a group's levels at affine_min_outputs (msm_plan.cuh).
// STARZK_MSM_BESIDE="6:16" (H's pieces:the others'): a partition's four G1
// MSMs under a 16 GB cap, one msm_pieces call each against one msm_beside
// call, the witness queries on a second stream beside H
// (bench_msm_rows.hpp, beside_rows).
// STARZK_MSM_SETS="2 4": that many witnesses over one stream of bases in
// 16 pieces against one call each (bench_msm_rows.hpp, sets_rows), for G1
// and G2.
// msm_g1_witness / msm_g2_witness (and _xyzz, with phase rows): scalars of
// a generated witness's mix (49.3% zero, 49.3% one, 1.4% random).
// STARZK_MSM_FOLD_WAYS="2 8 32": the G1 random and boolean-heavy rows and
// the _witness_xyzz rows again with the chunk partials folded that many at
// a time (rows ..._fold<w>, ..._fold<w>_phase_fold; bench_msm_rows.hpp).
// STARZK_MSM_WINDOWS / STARZK_MSM_G2_WINDOWS="16 18": random scalars again
// with those fixed window bits (rows msm_g*_random_c<bits>), to check the
// window cost model.
//
// Floors (the integer-multiply bound of docs/prover.md, Floors), at the
// measured rate of our Fp product (ceiling_fp_mul_per_s):
//   G1: 16 windows x n bucket additions x 10 Fp products (madd-2008-s, 8M + 2S);
//   G2: 16 windows x n x 28 Fp products: the same madd over Fp2, where a
//       product is 3 Fp products (Karatsuba) and a square 2, 8·3 + 2·2 = 28.
//       So the G2 floor is the G1 floor x 2.8: a G2 MSM at ratio r uses the
//       Fp multiplier as well as a G1 MSM at the same ratio.
#include <random>
#include <thread>

#include "bench_msm_rows.hpp"
#include "bench_util.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/xyzz.hpp"
#include "ff/mont_codec.hpp"
#include "util/parallel.hpp"

using namespace starzk;
using namespace starzk::gpu;
using namespace starzk::gpu::bench;

namespace {

// d[k..n) <- copies of d[0..k) by doubling (d[0..m) already holds m points).
void tile_by_doubling(void* d, size_t elem_bytes, size_t n, size_t m, cudaStream_t s) {
  auto* p = static_cast<char*>(d);
  for (size_t k = m; k < n; k *= 2)
    check_cuda(cudaMemcpyAsync(p + k * elem_bytes, p, std::min(k, n - k) * elem_bytes, cudaMemcpyDeviceToDevice, s),
               "tile");
}

// m distinct points Q + k·R in affine form, uploaded to a fresh device buffer.
template <class P>
device_buffer_t distinct_points(const jacobian_t<P>& q, const affine_t<P>& r, size_t m) {
  std::vector<jacobian_t<P>> jac(m);
  jac[0] = q;
  for (size_t i = 1; i < m; ++i) jac[i] = jac[i - 1].add_mixed(r);
  std::vector<affine_t<P>> pts(m);
  jacobian_t<P>::batch_to_affine(jac, pts);
  device_buffer_t d(m * sizeof(affine_t<P>));
  d.upload(pts.data(), m * sizeof(affine_t<P>));
  return d;
}

// d_bases[0..n) <- k_i·G for random k_i, min(n, 2^24) distinct points tiled.
void distinct_g1_bases(g1_affine_t* d_bases, size_t n, cudaStream_t s) {
  const size_t m = std::min(n, size_t(1) << 24);
  device_buffer_t table(fixed_base_table_bytes<g1_params>()), d_k(m * sizeof(fr_t)), d_xyzz(m * sizeof(g1_xyzz_t));
  check_cuda(fixed_base_table_init<g1_params>(table.get(), g1_affine_t::generator(), s), "table_init");
  fill_scalars(d_k.as<fr_t>(), m, 0, 777, s);
  check_cuda(fixed_base<g1_params>(d_xyzz.as<g1_xyzz_t>(), d_k.as<fr_t>(), m, table.get(), s), "fixed_base<g1_params>");
  std::vector<g1_xyzz_t> xyzz(m);
  std::vector<g1_affine_t> aff(m);
  check_cuda(cudaMemcpyAsync(xyzz.data(), d_xyzz.get(), m * sizeof(g1_xyzz_t), cudaMemcpyDeviceToHost, s), "copy");
  check_cuda(cudaStreamSynchronize(s), "sync");
  parallel_for(
      m, std::max(1u, std::thread::hardware_concurrency()),
      [&](size_t b, size_t e) {
        g1_xyzz_t::batch_to_affine(std::span<const g1_xyzz_t>(xyzz.data() + b, e - b),
                                   std::span<g1_affine_t>(aff.data() + b, e - b));
      },
      size_t(1) << 12);
  check_cuda(cudaMemcpyAsync(d_bases, aff.data(), m * sizeof(g1_affine_t), cudaMemcpyHostToDevice, s), "copy");
  tile_by_doubling(d_bases, sizeof(g1_affine_t), n, m, s);
  check_cuda(cudaStreamSynchronize(s), "sync");
}

// The zcash G2 generator (coordinates as in src/ec/curve.cpp).
g2_affine_t g2_generator() {
  auto fp = [](const char* h) { return fp_t::from_hex(h); };
  return g2_affine_t{
      fp2_t{fp("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
            fp("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
      fp2_t{fp("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
            fp("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")}};
}

// For each window size listed in `env`: the MSM again (random scalars) with
// that window and scratch of its own size: rows <prefix>_random_c<bits>.
// need(t) is the scratch query, run(t, scratch, bytes) the launch.
template <class Need, class Run>
void window_sweep(const char* env, const std::string& prefix, size_t n, int reps, double floor_ms, cudaStream_t s,
                  Need need, Run run) {
  for (unsigned c : env_list(env, {})) {
    msm_tuning_t t;
    t.window_bits = c;
    device_buffer_t scr(need(n, t));
    const double ms = time_ms(s, reps, [&] { run(t, scr.get(), scr.size()); });
    row(prefix + "_random_c" + std::to_string(c), double(n), ms, ms / floor_ms);
  }
}

void bench_g1(const std::vector<unsigned>& logs, const ceilings_t& ceil, cudaStream_t s) {
  // 2^16 distinct points (P_{i+1} = P_i + R), tiled on the device.
  const size_t m = size_t(1) << 16;
  std::mt19937_64 rng(42);
  const fp_t b4 = fp_t::from_u64(4);
  auto random_g1 = [&] {
    for (;;) {
      const fp_t x = fp_t::random(rng);
      fp_t y;
      if (!(x.sqr() * x + b4).sqrt(y)) continue;
      return mul_limbs(g1_affine_t{x, y}, std::span<const uint64_t>(g1_params::cofactor));
    }
  };
  const g1_jacobian_t q = random_g1();
  const device_buffer_t d_distinct = distinct_points<g1_params>(q, random_g1().to_affine(), m);

  for (unsigned L : logs) {
    const size_t n = size_t(1) << L;
    device_buffer_t d_bases(n * sizeof(g1_affine_t)), d_scalars(n * sizeof(fr_t)), d_bitmap(((n + 31) / 32) * 4),
        d_res(2 * sizeof(g1_xyzz_t)), d_jac(sizeof(g1_jacobian_t));
    distinct_g1_bases(d_bases.as<g1_affine_t>(), n, s);
    const size_t split_scratch = msm_split_scratch_bytes<g1_params>(n);
    const size_t scratch = std::max(split_scratch, msm_jacobian_scratch_bytes<g1_params>(n, true));
    device_buffer_t d_scratch(scratch);
    row("msm_g1_scratch_GiB", double(n), 0.0, double(split_scratch) / double(size_t(1) << 30));
    const double floor_ms = 16.0 * double(n) * 10.0 / ceil.fp_mul_per_s * 1e3;
    const int reps = L >= 26 ? 2 : 3;
    auto run = [&](const msm_tuning_t& t, void* scr, size_t bytes) {
      check_cuda(
          msm<g1_params>(d_res.as<g1_xyzz_t>(), d_bases.as<g1_affine_t>(), d_scalars.as<fr_t>(), n, scr, bytes, s, t),
          "msm<g1_params>");
    };
    for (int kind : {0, 1}) {
      fill_scalars(d_scalars.as<fr_t>(), n, kind, 1234 + L, s);
      const double ms = time_ms(s, reps, [&] { run({}, d_scratch.get(), scratch); });
      row(kind == 0 ? "msm_g1_random" : "msm_g1_bool", double(n), ms, ms / floor_ms);
      phase_rows(kind == 0 ? "msm_g1_random" : "msm_g1_bool", n, d_scratch.get(), scratch, run);
      fold_rows(kind == 0 ? "msm_g1_random" : "msm_g1_bool", n, reps, ms, {}, d_scratch.get(), scratch, s, run);
      {
        // One window per digit group, the form an MSM body takes when the
        // default groups do not fit its budget; last column: time over the
        // default call's.
        msm_tuning_t narrow;
        narrow.group_windows = 1;
        if (kind == 0)
          row("msm_g1_scratch_narrow_GiB", double(n), 0.0,
              double(msm_scratch_bytes<g1_params>(n, narrow)) / double(size_t(1) << 30));
        const double msn = time_ms(s, reps, [&] { run(narrow, d_scratch.get(), scratch); });
        row(kind == 0 ? "msm_g1_random_narrow" : "msm_g1_bool_narrow", double(n), msn, msn / ms);
      }
      if (kind == 0) {
        // The same call without batch-affine levels (XYZZ only), for the ratio.
        msm_tuning_t xyzz;
        xyzz.affine_levels = 0;
        const double ms0 = time_ms(s, reps, [&] { run(xyzz, d_scratch.get(), scratch); });
        row("msm_g1_random_xyzz", double(n), ms0, ms0 / floor_ms);
        {
          device_buffer_t d_tiled(n * sizeof(g1_affine_t));
          tile_points(d_tiled.as<g1_affine_t>(), n, d_distinct.as<g1_affine_t>(), std::min(m, n), s);
          const double ms1 = time_ms(s, reps, [&] {
            check_cuda(msm<g1_params>(d_res.as<g1_xyzz_t>(), d_tiled.as<g1_affine_t>(), d_scalars.as<fr_t>(), n,
                                      d_scratch.get(), scratch, s),
                       "msm<g1_params>");
          });
          row("msm_g1_random_tiled64k", double(n), ms1, ms1 / floor_ms);
        }
        for (unsigned L : env_list("STARZK_MSM_AFFINE_LEVELS", {})) {
          msm_tuning_t t;
          t.affine_levels = int(L);
          device_buffer_t scr(msm_scratch_bytes<g1_params>(n, t));
          const double ms = time_ms(s, reps, [&] { run(t, scr.get(), scr.size()); });
          const std::string name = "msm_g1_random_L" + std::to_string(L);
          row(name, double(n), ms, ms / floor_ms);
          msm_profile_t prof;
          t.profile = &prof;
          run(t, scr.get(), scr.size());
          row(name + "_phase_affine", double(n), prof.affine, prof.affine / prof.total());
          row(name + "_phase_accumulate", double(n), prof.accumulate + prof.fold,
              (prof.accumulate + prof.fold) / prof.total());
        }
        window_sweep("STARZK_MSM_WINDOWS", "msm_g1", n, reps, floor_ms, s, msm_scratch_bytes<g1_params>, run);
        pieces_rows(n, reps, d_bases.as<g1_affine_t>(), d_scalars.as<fr_t>(), s);
        sets_rows<g1_params>("msm_g1", n, reps, d_bases.as<g1_affine_t>(), s);
        continue;
      }
      {
        // The plain MSM without batch-affine levels (the lean form the
        // codelets' witness MSMs plan with when scratch is short).
        msm_tuning_t xyzz;
        xyzz.affine_levels = 0;
        const double ms0 = time_ms(s, reps, [&] { run(xyzz, d_scratch.get(), scratch); });
        row("msm_g1_bool_xyzz", double(n), ms0, ms0 / floor_ms);
      }
      bench::ones_bitmap(d_bitmap.as<uint32_t>(), d_scalars.as<fr_t>(), n, s);
      const double ms2 = time_ms(s, reps, [&] {
        check_cuda(msm_split<g1_params>(d_res.as<g1_xyzz_t>(), d_res.as<g1_xyzz_t>() + 1, d_bases.as<g1_affine_t>(),
                                        d_scalars.as<fr_t>(), d_bitmap.as<uint32_t>(), n, d_scratch.get(), scratch, s),
                   "msm_split<g1_params>");
      });
      row("msm_g1_split_bool", double(n), ms2, ms2 / floor_ms);
      const double ms3 = time_ms(s, reps, [&] {
        check_cuda(msm_jacobian<g1_params>(d_jac.as<g1_jacobian_t>(), d_bases.as<g1_affine_t>(), d_scalars.as<fr_t>(),
                                           n, 0, d_scratch.get(), scratch, s),
                   "msm_jacobian<g1_params>");
      });
      row("msm_g1_jacobian_split_bool", double(n), ms3, ms3 / floor_ms);
    }
    witness_rows("msm_g1", n, reps, floor_ms, d_scalars.as<fr_t>(), 5678 + L, d_scratch.get(), scratch, s, run);
  }
}

void bench_g2(const std::vector<unsigned>& logs, const ceilings_t& ceil, cudaStream_t s) {
  // 2^12 distinct points G + k·2G, tiled on the device.
  const size_t m = size_t(1) << 12;
  const g2_jacobian_t g = g2_jacobian_t::from_affine(g2_generator());
  const device_buffer_t d_distinct = distinct_points<g2_params>(g, g.dbl().to_affine(), m);

  for (unsigned L : logs) {
    const size_t n = size_t(1) << L;
    device_buffer_t d_bases(n * sizeof(g2_affine_t)), d_scalars(n * sizeof(fr_t)), d_res(sizeof(g2_xyzz_t)),
        d_jac(sizeof(g2_jacobian_t));
    check_cuda(cudaMemcpyAsync(d_bases.get(), d_distinct.get(), std::min(m, n) * sizeof(g2_affine_t),
                               cudaMemcpyDeviceToDevice, s),
               "copy");
    tile_by_doubling(d_bases.get(), sizeof(g2_affine_t), n, std::min(m, n), s);
    const size_t scratch = msm_jacobian_scratch_bytes<g2_params>(n, true);
    device_buffer_t d_scratch(scratch);
    row("msm_g2_scratch_GiB", double(n), 0.0, double(scratch) / double(size_t(1) << 30));
    const double floor_ms = 16.0 * double(n) * 28.0 / ceil.fp_mul_per_s * 1e3;
    const int reps = L >= 24 ? 2 : 3;
    auto run = [&](const msm_tuning_t& t, void* scr, size_t bytes) {
      check_cuda(
          msm<g2_params>(d_res.as<g2_xyzz_t>(), d_bases.as<g2_affine_t>(), d_scalars.as<fr_t>(), n, scr, bytes, s, t),
          "msm<g2_params>");
    };
    for (int kind : {0, 1}) {
      fill_scalars(d_scalars.as<fr_t>(), n, kind, 4321 + L, s);
      const double ms = time_ms(s, reps, [&] { run({}, d_scratch.get(), scratch); });
      row(kind == 0 ? "msm_g2_random" : "msm_g2_bool", double(n), ms, ms / floor_ms);
      phase_rows(kind == 0 ? "msm_g2_random" : "msm_g2_bool", n, d_scratch.get(), scratch, run);
      if (kind == 0) {
        msm_tuning_t xyzz;
        xyzz.affine_levels = 0;
        const double ms0 = time_ms(s, reps, [&] { run(xyzz, d_scratch.get(), scratch); });
        row("msm_g2_random_xyzz", double(n), ms0, ms0 / floor_ms);
        window_sweep("STARZK_MSM_G2_WINDOWS", "msm_g2", n, reps, floor_ms, s, msm_scratch_bytes<g2_params>, run);
        continue;
      }
      {
        msm_tuning_t xyzz;  // the plain MSM without batch-affine levels
        xyzz.affine_levels = 0;
        const double ms0 = time_ms(s, reps, [&] { run(xyzz, d_scratch.get(), scratch); });
        row("msm_g2_bool_xyzz", double(n), ms0, ms0 / floor_ms);
      }
      const double ms2 = time_ms(s, reps, [&] {
        check_cuda(msm_jacobian<g2_params>(d_jac.as<g2_jacobian_t>(), d_bases.as<g2_affine_t>(), d_scalars.as<fr_t>(),
                                           n, 0, d_scratch.get(), scratch, s),
                   "msm_jacobian<g2_params>");
      });
      row("msm_g2_jacobian_split_bool", double(n), ms2, ms2 / floor_ms);
      // The same without batch-affine levels (XYZZ only), for the ratio.
      msm_tuning_t xyzz;
      xyzz.affine_levels = 0;
      const double ms3 = time_ms(s, reps, [&] {
        check_cuda(msm_jacobian<g2_params>(d_jac.as<g2_jacobian_t>(), d_bases.as<g2_affine_t>(), d_scalars.as<fr_t>(),
                                           n, 0, d_scratch.get(), scratch, s, xyzz),
                   "msm_jacobian<g2_params>");
      });
      row("msm_g2_jacobian_split_bool_xyzz", double(n), ms3, ms3 / floor_ms);
    }
    witness_rows("msm_g2", n, reps, floor_ms, d_scalars.as<fr_t>(), 8765 + L, d_scratch.get(), scratch, s, run);
    sets_rows<g2_params>("msm_g2", n, reps, d_bases.as<g2_affine_t>(), s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<unsigned> logs = log_sizes(argc, argv, {20, 22, 24, 26, 27});
    stream_t s;
    const ceilings_t ceil = measure_ceilings(s.get(), true);
    bench_g1(logs, ceil, s.get());
    bench_g2(env_list("STARZK_MSM_G2_LOGS", {16, 20, 22, 24}), ceil, s.get());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_msm: %s\n", e.what());
    return 1;
  }
}
