// Shared pieces of the GPU benchmarks: CUDA-event timing, the CSV row format
// (name,n,ms,ratio_to_floor), device-side random scalar generation, and the
// two ceilings every run measures next to the kernels:
//   copy: a large device-to-device copy, GB/s counted as read + write bytes;
//   fp_mul: products per second of our device Fp multiplication
//           (fp_mul_probe; the bar is 1.66e10/s for a plain CUDA C CIOS).
// Ceiling rows put the measured rate in the last column.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/starzk_cuda_host.hpp"

namespace starzk::gpu::bench {

// The words of the environment variable `name` ("5:4 8:3"), none where it
// is unset.
inline std::vector<std::string> env_words(const char* name) {
  std::vector<std::string> out;
  const char* v = std::getenv(name);
  if (!v) return out;
  std::istringstream in(v);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// A list of unsigned numbers from the environment variable `name`
// ("16 18"), or `fallback` where it is unset.
inline std::vector<unsigned> env_list(const char* name, std::vector<unsigned> fallback) {
  const char* v = std::getenv(name);
  if (!v) return fallback;
  std::vector<unsigned> out;
  for (const char* q = v; *q;) {
    char* next = nullptr;
    const unsigned x = unsigned(std::strtoul(q, &next, 10));
    if (next == q) break;
    out.push_back(x);
    q = next;
  }
  return out;
}

// Median of `reps` timed runs (after one warm-up), milliseconds.
inline double time_ms(cudaStream_t s, int reps, const std::function<void()>& body) {
  cudaEvent_t a, b;
  check_cuda(cudaEventCreate(&a), "event");
  check_cuda(cudaEventCreate(&b), "event");
  body();
  check_cuda(cudaStreamSynchronize(s), "warm-up");
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    check_cuda(cudaEventRecord(a, s), "record");
    body();
    check_cuda(cudaEventRecord(b, s), "record");
    check_cuda(cudaEventSynchronize(b), "sync");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, a, b), "elapsed");
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The log2 sizes given as arguments, else `defaults`.
inline std::vector<unsigned> log_sizes(int argc, char** argv, std::vector<unsigned> defaults) {
  if (argc <= 1) return defaults;
  std::vector<unsigned> logs;
  for (int i = 1; i < argc; ++i) logs.push_back(unsigned(std::atoi(argv[i])));
  return logs;
}

// Page-locked host memory (cudaHostAlloc / cudaFreeHost).
struct pinned_t {
  void* p = nullptr;
  explicit pinned_t(size_t bytes) { check_cuda(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc"); }
  ~pinned_t() { (void)cudaFreeHost(p); }
  pinned_t(const pinned_t&) = delete;
  pinned_t& operator=(const pinned_t&) = delete;
};

inline void row(const std::string& name, double n, double ms, double ratio) {
  std::printf("%s,%.0f,%.4f,%.4g\n", name.c_str(), n, ms, ratio);
  std::fflush(stdout);
}

struct ceilings_t {
  double copy_gbps = 0;  // read + write
  double fp_mul_per_s = 0;
};

// Fills d_scalars with n Fr elements: kind 0 random (< 2^254, already a valid
// Montgomery word), kind 1 boolean-heavy (45% zero, 45% one, 10% random),
// kind 2 a generated witness's mix (49.3% zero, 49.3% one, 1.4% random: the
// aux values of a `starzk gen` circuit at 2^27).
void fill_scalars(fr_t* d_scalars, size_t n, int kind, uint64_t seed, cudaStream_t s);
// d_dst[i] = d_src[i mod m] for i < n (bases of a big MSM from m distinct points).
void tile_points(g1_affine_t* d_dst, size_t n, const g1_affine_t* d_src, size_t m, cudaStream_t s);
// Bitmap of the scalars equal to one.
void ones_bitmap(uint32_t* d_bitmap, const fr_t* d_scalars, size_t n, cudaStream_t s);

inline ceilings_t measure_ceilings(cudaStream_t s, bool print) {
  ceilings_t c;
  const size_t bytes = size_t(4) << 30;  // 4 GiB
  device_buffer_t a(bytes), b(bytes);
  check_cuda(cudaMemsetAsync(a.get(), 1, bytes, s), "memset");
  const double ms =
      time_ms(s, 5, [&] { check_cuda(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, s), "copy"); });
  c.copy_gbps = 2.0 * double(bytes) / (ms * 1e6);
  if (print) row("ceiling_copy_d2d_GBps", double(bytes), ms, c.copy_gbps);

  const size_t threads = size_t(132) * 2048;
  const unsigned iters = 2000;
  device_buffer_t seed(8 * sizeof(fp_t)), out(threads * sizeof(fp_t));
  std::vector<fp_t> h(8);
  for (size_t i = 0; i < h.size(); ++i) h[i] = fp_t::from_u64(0x9e3779b97f4a7c15ull * (i + 3));
  seed.upload(h.data(), h.size() * sizeof(fp_t));
  const double ms2 =
      time_ms(s, 3, [&] { check_cuda(fp_mul_probe(out.as<fp_t>(), seed.as<fp_t>(), threads, iters, s), "probe"); });
  const double mults = 4.0 * double(threads) * iters;
  c.fp_mul_per_s = mults / (ms2 * 1e-3);
  if (print) row("ceiling_fp_mul_per_s", mults, ms2, c.fp_mul_per_s);
  return c;
}

}  // namespace starzk::gpu::bench
