// Fixed-base products of the development setup on the GPU (cuda/fixed_base.cu):
// fixed_base<g1_params> and fixed_base<g2_params> (rows fixed_base_g1 and
// fixed_base_g2) at n = 2^20, 2^22, 2^24 (or the log sizes given as
// arguments), random scalars, table resident, output to device
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

template <class P>
void bench_group(const char* name, double products_per_point, const ceilings_t& ceil, const std::vector<unsigned>& logs,
                 cudaStream_t s) {
  using Xyzz = xyzz_t<P>;
  device_buffer_t table(fixed_base_table_bytes<P>());
  check_cuda(fixed_base_table_init<P>(table.get(), affine_t<P>::generator(), s), "table_init");
  for (unsigned L : logs) {
    const size_t n = size_t(1) << L;
    device_buffer_t d_k(n * sizeof(fr_t)), d_out(n * sizeof(Xyzz));
    fill_scalars(d_k.as<fr_t>(), n, 0, 1234 + L, s);
    const int reps = L >= 24 ? 2 : 3;
    const double ms =
        time_ms(s, reps, [&] { check_cuda(fixed_base<P>(d_out.as<Xyzz>(), d_k.as<fr_t>(), n, table.get(), s), name); });
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
    bench_group<g1_params>("fixed_base_g1", 310.0, ceil, logs, s.get());
    bench_group<g2_params>("fixed_base_g2", 868.0, ceil, logs, s.get());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_setup: %s\n", e.what());
    return 1;
  }
}
