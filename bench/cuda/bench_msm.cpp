// G1 MSM benchmark on the H200: n = 2^20, 2^22, 2^24, 2^26, 2^27 (or the log sizes
// given as arguments), bases resident on the device, scalars random or
// boolean-heavy (45% zero, 45% one, 10% random). Boolean-heavy scalars are
// run both through the plain MSM and through the prep_msm split (batch add of
// the ones + tail MSM). Prints CSV rows name,n,ms,ratio_to_floor; the floor
// is the integer-multiply bound of DESIGN.md section 7: 16 windows x n bucket
// additions x 10 Fp products at the measured Fp product rate. A row
// msm_g1_scratch_GiB per size gives the scratch the MSM asked for (the last
// column holds the GiB), so the memory cap of the window groups shows.
#include <random>

#include "bench_util.hpp"
#include "ec/scalar_mul.hpp"

using namespace starzk;
using namespace starzk::gpu;
using namespace starzk::gpu::bench;

int main(int argc, char** argv) {
  try {
    std::vector<unsigned> logs = {20, 22, 24, 26, 27};
    if (argc > 1) {
      logs.clear();
      for (int i = 1; i < argc; ++i) logs.push_back(unsigned(std::atoi(argv[i])));
    }
    stream_t s;
    const ceilings_t ceil = measure_ceilings(s.get(), true);

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
    const g1_affine_t r = random_g1().to_affine();
    std::vector<g1_jacobian_t> jac(m);
    jac[0] = q;
    for (size_t i = 1; i < m; ++i) jac[i] = jac[i - 1].add_mixed(r);
    std::vector<g1_affine_t> pts(m);
    g1_jacobian_t::batch_to_affine(jac, pts);
    device_buffer_t d_distinct(m * sizeof(g1_affine_t));
    d_distinct.upload(pts.data(), m * sizeof(g1_affine_t));

    for (unsigned L : logs) {
      const size_t n = size_t(1) << L;
      device_buffer_t d_bases(n * sizeof(g1_affine_t)), d_scalars(n * sizeof(fr_t)),
          d_bitmap(((n + 31) / 32) * 4), d_res(2 * sizeof(g1_xyzz_t));
      tile_points(d_bases.as<g1_affine_t>(), n, d_distinct.as<g1_affine_t>(), std::min(m, n), s.get());
      const size_t scratch = msm_g1_split_scratch_bytes(n);
      device_buffer_t d_scratch(scratch);
      row("msm_g1_scratch_GiB", double(n), 0.0, double(scratch) / double(size_t(1) << 30));
      const double floor_ms = 16.0 * double(n) * 10.0 / ceil.fp_mul_per_s * 1e3;
      const int reps = L >= 26 ? 2 : 3;
      for (int kind : {0, 1}) {
        fill_scalars(d_scalars.as<fr_t>(), n, kind, 1234 + L, s.get());
        const double ms = time_ms(s.get(), reps, [&] {
          check_cuda(msm_g1(d_res.as<g1_xyzz_t>(), d_bases.as<g1_affine_t>(), d_scalars.as<fr_t>(), n,
                            d_scratch.get(), scratch, s.get()),
                     "msm_g1");
        });
        row(kind == 0 ? "msm_g1_random" : "msm_g1_bool", double(n), ms, ms / floor_ms);
        // STARZK_MSM_WINDOWS="16 18": random scalars again with fixed window bits.
        const char* wins = std::getenv("STARZK_MSM_WINDOWS");
        for (const char* q = wins; kind == 0 && q && *q;) {
          char* next = nullptr;
          const unsigned c = unsigned(std::strtoul(q, &next, 10));
          if (next == q) break;
          q = next;
          msm_tuning_t t;
          t.window_bits = c;
          const size_t need = msm_g1_scratch_bytes(n, t);
          device_buffer_t d_scr(need);
          const double msc = time_ms(s.get(), reps, [&] {
            check_cuda(msm_g1(d_res.as<g1_xyzz_t>(), d_bases.as<g1_affine_t>(), d_scalars.as<fr_t>(), n, d_scr.get(),
                              need, s.get(), t),
                       "msm_g1");
          });
          row("msm_g1_random_c" + std::to_string(c), double(n), msc, msc / floor_ms);
        }
        if (kind == 1) {
          ones_bitmap(d_bitmap.as<uint32_t>(), d_scalars.as<fr_t>(), n, s.get());
          const double ms2 = time_ms(s.get(), reps, [&] {
            check_cuda(msm_g1_split(d_res.as<g1_xyzz_t>(), d_res.as<g1_xyzz_t>() + 1, d_bases.as<g1_affine_t>(),
                                    d_scalars.as<fr_t>(), d_bitmap.as<uint32_t>(), n, d_scratch.get(), scratch,
                                    s.get()),
                       "msm_g1_split");
          });
          row("msm_g1_split_bool", double(n), ms2, ms2 / floor_ms);
        }
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_msm: %s\n", e.what());
    return 1;
  }
}
