// bench_mulx: nanoseconds per F_p mul, F_p sqr and F_r mul on the portable
// C++ product and on the mulx/adcx/adox one (ff/mulx.hpp), in one run.
//
// Two shapes per operation: "latency" feeds each result back as an operand
// (one dependent chain: what an exponentiation or an inversion sees), and
// "throughput" runs 8 independent chains (what a batch of point additions,
// the tower's Karatsuba products or NTT butterflies see). Each figure is the
// fastest of many short bursts, with the two paths interleaved burst by
// burst, so a shared machine's other load inflates neither side more than
// the other. Usage: bench_mulx [bursts (default 400)].
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "ff/ff.hpp"
#include "ff/fp_x8_ifma.hpp"

namespace starzk {
namespace {

constexpr int ops_per_burst = 4096;
constexpr int lanes = 8;

template <class T>
struct inputs_t {
  T a[lanes];
  T b;
};

// The compiler must keep every product: fold the lanes into a sink.
volatile uint64_t sink;

template <class T, bool square>
[[gnu::noinline]] double latency_burst(inputs_t<T>& in) {
  T x = in.a[0];
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < ops_per_burst; ++i) x = square ? x.sqr() : x * in.b;
  const auto t1 = std::chrono::steady_clock::now();
  in.a[0] = x;
  sink = x.l[0];
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / ops_per_burst;
}

template <class T, bool square>
[[gnu::noinline]] double throughput_burst(inputs_t<T>& in) {
  T x[lanes];
  std::copy(in.a, in.a + lanes, x);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < ops_per_burst / lanes; ++i) {
    for (auto& v : x) v = square ? v.sqr() : v * in.b;
  }
  const auto t1 = std::chrono::steady_clock::now();
  std::copy(x, x + lanes, in.a);
  sink = x[0].l[0] ^ x[lanes - 1].l[0];
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / ops_per_burst;
}

struct figure_t {
  double portable, mulx;
};

// Fastest burst of each path, alternating portable and mulx bursts.
template <class Burst, class T>
figure_t measure(Burst burst, inputs_t<T>& in, int bursts) {
  figure_t f{1e300, 1e300};
  for (int i = 0; i < bursts; ++i) {
    ff_path::set_fast(false);
    f.portable = std::min(f.portable, burst(in));
    ff_path::set_fast(true);
    f.mulx = std::min(f.mulx, burst(in));
  }
  return f;
}

template <class T, bool square>
void row(const char* name, int bursts, std::mt19937_64& g) {
  inputs_t<T> in;
  for (auto& v : in.a) v = T::random(g);
  in.b = T::random(g);
  const figure_t lat = measure([](inputs_t<T>& x) { return latency_burst<T, square>(x); }, in, bursts);
  const figure_t thr = measure([](inputs_t<T>& x) { return throughput_burst<T, square>(x); }, in, bursts);
  std::printf("| %-6s | %7.1f | %7.1f | %5.2fx | %7.1f | %7.1f | %5.2fx |\n", name, lat.portable, lat.mulx,
              lat.portable / lat.mulx, thr.portable, thr.mulx, thr.portable / thr.mulx);
}

#if STARZK_FF_IFMA
// The 8-lane IFMA product (ff/fp_x8_ifma.hpp): ns per F_p product, i.e. per
// lane. Latency: one vector chain, each result the next operand (8
// products per step, each lane its own chain). Throughput: 4 independent
// vector chains (32 products per step).
template <bool square, int chains>
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN double x8_burst(ifma::fp_x8_t* x, const ifma::fp_x8_t& b) {
  ifma::fp_x8_t v[chains];
  for (int c = 0; c < chains; ++c) v[c] = x[c];
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < ops_per_burst / (8 * chains); ++i)
    for (auto& w : v) w = square ? w.sqr() : w * b;
  const auto t1 = std::chrono::steady_clock::now();
  for (int c = 0; c < chains; ++c) x[c] = v[c];
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / ops_per_burst;
}

// The fastest burst of the mulx product (throughput shape) and of the 8-lane
// one, alternating, for F_p mul and sqr.
template <bool square>
STARZK_IFMA_TARGET STARZK_IFMA_FLATTEN void x8_row(const char* name, int bursts, std::mt19937_64& g) {
  inputs_t<fp_t> in;
  for (auto& v : in.a) v = fp_t::random(g);
  in.b = fp_t::random(g);
  ifma::fp_x8_t x[4];
  for (auto& v : x) v = ifma::to_lanes(in.a);
  const ifma::fp_x8_t b = ifma::to_lanes(in.a);
  double mulx = 1e300, lat = 1e300, thr = 1e300;
  ff_path::set_fast(true);
  for (int i = 0; i < bursts; ++i) {
    mulx = std::min(mulx, throughput_burst<fp_t, square>(in));
    lat = std::min(lat, x8_burst<square, 1>(x, b));
    thr = std::min(thr, x8_burst<square, 4>(x, b));
  }
  fp_t out[8];
  ifma::from_lanes(x[0], out);
  sink = out[0].l[0];
  std::printf("| %-6s | %7.1f | %7.1f | %5.2fx | %7.1f | %5.2fx |\n", name, mulx, lat, mulx / lat, thr, mulx / thr);
}
#endif

}  // namespace
}  // namespace starzk

int main(int argc, char** argv) {
  using namespace starzk;
  const int bursts = argc > 1 ? std::max(1, std::atoi(argv[1])) : 400;
  const bool has = ff_path::cpu_has_mulx();
  std::printf("mulx/adcx/adox: %s; ns per operation, fastest of %d bursts of %d\n",
              has ? "available" : "NOT available (both columns portable)", bursts, ops_per_burst);
  std::printf(
      "| op     | latency portable | latency mulx | speedup | throughput portable | throughput mulx | speedup |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  std::mt19937_64 g(1);
  row<fp_t, false>("Fp mul", bursts, g);
  row<fp_t, true>("Fp sqr", bursts, g);
  row<fr_t, false>("Fr mul", bursts, g);
  row<fr_t, true>("Fr sqr", bursts, g);
#if STARZK_FF_IFMA
  if (ff_path::cpu_has_ifma()) {
    std::printf("\n8-lane AVX-512 IFMA (ns per product, i.e. per lane) against mulx in a stream\n");
    std::printf("| op     | mulx throughput | x8 latency | speedup | x8 throughput | speedup |\n");
    std::printf("|---|---|---|---|---|---|\n");
    x8_row<false>("Fp mul", bursts, g);
    x8_row<true>("Fp sqr", bursts, g);
  } else {
    std::printf("\nAVX-512 IFMA: not available\n");
  }
#endif
  ff_path::set_fast(has);
  return int(sink & 0);
}
