// Fixed-base products of the development setup on the GPU (cuda/fixed_base.cu):
// fixed_base_g1 and fixed_base_g2 at n = 2^20, 2^22, 2^24 (or the log sizes
// given as arguments), random scalars, table resident, output to device
// memory (no host transfer: the setup pipeline overlaps those, see
// src/keys/gpu_setup.cpp). Prints CSV rows name,n,ms,ratio_to_floor.
// Floor: the products of the mixed additions alone, at the Fp product rate
// fp_mul_probe measures (ceiling_fp_mul_per_s row):
//   G1: 31 madd-2008-s x (8M + 2S)               = 310 Fp products per point;
//   G2: 31 x (8 + 2) Fp2 products, M = 3, S = 2  = 868 Fp products per point.
// The scalar's exit from Montgomery form, the table reads and the XYZZ
// output are what the ratio shows above 1 (the conversion to affine runs on
// the host in setup). bench/gpu-bench.sh adds `starzk gen` GPU vs CPU rows.
#include "bench_util.hpp"

using namespace starzk;
using namespace starzk::gpu;
using namespace starzk::gpu::bench;

namespace {

template <class Aff, class Xyzz>
void bench_group(const char* name, double products_per_point, const ceilings_t& ceil, const std::vector<unsigned>& logs,
                 size_t (*table_bytes)(), cudaError_t (*init)(void*, const Aff&, cudaStream_t),
                 cudaError_t (*mul)(Xyzz*, const fr_t*, size_t, const void*, cudaStream_t, const fixed_base_tuning_t&),
                 cudaStream_t s) {
  device_buffer_t table(table_bytes());
  check_cuda(init(table.get(), Aff::generator(), s), "table_init");
  for (unsigned L : logs) {
    const size_t n = size_t(1) << L;
    device_buffer_t d_k(n * sizeof(fr_t)), d_out(n * sizeof(Xyzz));
    fill_scalars(d_k.as<fr_t>(), n, 0, 1234 + L, s);
    const int reps = L >= 24 ? 2 : 3;
    const double ms =
        time_ms(s, reps, [&] { check_cuda(mul(d_out.as<Xyzz>(), d_k.as<fr_t>(), n, table.get(), s, {}), name); });
    const double floor_ms = double(n) * products_per_point / ceil.fp_mul_per_s * 1e3;
    row(name, double(n), ms, ms / floor_ms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<unsigned> logs = log_sizes(argc, argv, {20, 22, 24});
    stream_t s;
    const ceilings_t ceil = measure_ceilings(s.get(), true);
    bench_group<g1_affine_t, g1_xyzz_t>("fixed_base_g1", 310.0, ceil, logs, fixed_base_g1_table_bytes,
                                        fixed_base_g1_table_init, fixed_base_g1, s.get());
    bench_group<g2_affine_t, g2_xyzz_t>("fixed_base_g2", 868.0, ceil, logs, fixed_base_g2_table_bytes,
                                        fixed_base_g2_table_init, fixed_base_g2, s.get());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_setup: %s\n", e.what());
    return 1;
  }
}
