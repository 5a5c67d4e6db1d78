// Key point checks and decompression on the GPU (cuda/key_check.cu):
// check_g1, check_g2, decompress_g1, decompress_g2 over n = 2^22 points (or
// the log sizes given as arguments), default options (subgroup test on),
// host arrays in and out as a key loader passes them: each call streams its
// points through the device itself, so the wall-clock time includes the
// transfers, the pinned staging and its allocation. Median of 3 calls after
// one warm-up. Rows:
//   name,n,ms,ratio_to_floor            floor: the Fp products per point
//                                       below at the fp_mul_probe rate
//   name_points_per_s,n,ms,points/s     the cost per point
// Fp products per point (key_check_math.cuh; Fp2 M = 3, S = 2):
//   check_g1       on the curve 3 + two [|x|] (63 dbl x 9 + 5 add x 14) + 3 = 1280
//   check_g2       7 + one [|x|] (63 x 24 + 5 x 40) + psi and compare 12   = 1731
//   decompress_g1  sqrt (384 S + 229 M) + 5 + subgroup 1277                = 1895
//   decompress_g2  sqrt (two Fp powers, 2 x (384 S + 229 M)) + ~12 + ~30
//                  + subgroup 1724                                         = 2992
// Points: 4096 distinct subgroup points Q + i·R, tiled; every point passes.
#include <chrono>
#include <cstring>
#include <random>

#include "bench_util.hpp"
#include "cuda/key_check.hpp"
#include "ec/encoding.hpp"
#include "ec/subgroup.hpp"

using namespace starzk;
using namespace starzk::gpu;
using namespace starzk::gpu::bench;

namespace {

constexpr size_t distinct = 4096;

// A random curve point with its cofactor cleared.
template <class Aff>
Aff random_subgroup_point(std::mt19937_64& rng) {
  using F = typename Aff::field_t;
  using jac = jacobian_t<typename Aff::params_t>;
  for (;;) {
    const F x = F::random(rng);
    F y;
    if ((x.sqr() * x + Aff::params_t::b()).sqrt(y)) return clear_cofactor(jac::from_affine(Aff{x, y})).to_affine();
  }
}

// n points: `distinct` points Q + i·R repeated.
template <class Aff>
std::vector<Aff> points(size_t n) {
  using jac = jacobian_t<typename Aff::params_t>;
  std::mt19937_64 rng(20240518);
  const jac q = jac::from_affine(random_subgroup_point<Aff>(rng));
  const Aff r = random_subgroup_point<Aff>(rng);
  std::vector<jac> j(distinct);
  jac acc = q;
  for (size_t i = 0; i < distinct; ++i, acc = acc.add_mixed(r)) j[i] = acc;
  std::vector<Aff> base(distinct), out(n);
  jac::batch_to_affine(j, base);
  for (size_t i = 0; i < n; ++i) out[i] = base[i % distinct];
  return out;
}

// Median wall-clock milliseconds of `reps` calls after one warm-up.
template <class F>
double wall_ms(int reps, F&& call) {
  call();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto a = std::chrono::steady_clock::now();
    call();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(const std::string& name, size_t n, double ms, double products_per_point, const ceilings_t& ceil) {
  const double floor_ms = double(n) * products_per_point / ceil.fp_mul_per_s * 1e3;
  row(name, double(n), ms, ms / floor_ms);
  row(name + "_points_per_s", double(n), ms, double(n) / (ms * 1e-3));
}

void expect_ok(cudaError_t e, const point_scan_t& s, const char* what) {
  check_cuda(e, what);
  if (!s.ok())
    throw std::runtime_error(std::string(what) + ": point " + std::to_string(s.first_bad) +
                             " failed: " + describe(s.fault));
}

template <class Aff>
void bench_group(const char* g, size_t n, size_t compressed_size, double check_products, double decompress_products,
                 cudaError_t (*check)(const Aff*, size_t, const key_check_options_t&, point_scan_t*,
                                      key_check_context_t*),
                 cudaError_t (*decompress)(const uint8_t*, size_t, Aff*, const key_check_options_t&, point_scan_t*,
                                           key_check_context_t*),
                 void (*encode)(const Aff&, uint8_t*), const ceilings_t& ceil) {
  const std::vector<Aff> pts = points<Aff>(n);
  std::vector<uint8_t> enc(n * compressed_size);
  for (size_t i = 0; i < distinct && i < n; ++i) encode(pts[i], &enc[i * compressed_size]);
  for (size_t i = distinct; i < n; ++i)
    std::memcpy(&enc[i * compressed_size], &enc[(i % distinct) * compressed_size], compressed_size);
  std::vector<Aff> out(n);
  const key_check_options_t opt;
  point_scan_t s;
  const std::string name_c = std::string("check_") + g, name_d = std::string("decompress_") + g;
  // The rows time calls that share one context (the staging page-locked
  // once, as a key's unpacking does); the _fresh rows calls that make and
  // free their own, for the cost of that.
  key_check_context_t ctx;
  const double ms_c = wall_ms(3, [&] { expect_ok(check(pts.data(), n, opt, &s, &ctx), s, name_c.c_str()); });
  report(name_c, n, ms_c, check_products, ceil);
  const double ms_cf = wall_ms(3, [&] { expect_ok(check(pts.data(), n, opt, &s, nullptr), s, name_c.c_str()); });
  report(name_c + "_fresh", n, ms_cf, check_products, ceil);
  const double ms_df =
      wall_ms(3, [&] { expect_ok(decompress(enc.data(), n, out.data(), opt, &s, nullptr), s, name_d.c_str()); });
  report(name_d + "_fresh", n, ms_df, decompress_products, ceil);
  const double ms_d =
      wall_ms(3, [&] { expect_ok(decompress(enc.data(), n, out.data(), opt, &s, &ctx), s, name_d.c_str()); });
  if (std::memcmp(out.data(), pts.data(), n * sizeof(Aff)) != 0)
    throw std::runtime_error(name_d + ": decompressed points differ from the originals");
  report(name_d, n, ms_d, decompress_products, ceil);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<unsigned> logs = log_sizes(argc, argv, {22});
    stream_t s;
    const ceilings_t ceil = measure_ceilings(s.get(), true);
    for (unsigned L : logs) {
      const size_t n = size_t(1) << L;
      bench_group<g1_affine_t>("g1", n, g1_compressed_size, 1280, 1895, check_g1, decompress_g1, encode_g1_compressed,
                               ceil);
      bench_group<g2_affine_t>("g2", n, g2_compressed_size, 1731, 2992, check_g2, decompress_g2, encode_g2_compressed,
                               ceil);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_key_check: %s\n", e.what());
    return 1;
  }
}
