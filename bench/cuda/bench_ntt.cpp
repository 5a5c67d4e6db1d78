// NTT benchmark on the H200: forward natural -> bit-reversed transforms for
// n = 2^20 .. 2^27 (or the log sizes given as arguments), plus the whole
// Groth16 H phase (ntt_h, both conventions) at 2^20..2^24 and 2^27. CSV rows
// name,n,ms,ratio_to_floor; the floor of one transform is the bandwidth
// bound of reading and writing the vector once (2·32·n bytes at the measured
// device-copy rate); for ntt_h it is 7 such transforms' worth of traffic.
// At 2^24 and 2^27 also the H phase in passes (bellman, lean tables, as a
// 16 GB card runs it: a, b, c page-locked in host memory), in one device
// vector and in two (ntt_h_passes1 / ntt_h_passes2); their last column is
// the ratio to the whole ntt_h_bellman of the same size.
#include "bench_util.hpp"

using namespace starzk;
using namespace starzk::gpu;
using namespace starzk::gpu::bench;

namespace {

// The H phase in passes in one and in two device vectors (file comment).
void passes_rows(unsigned L, const device_buffer_t& a, const device_buffer_t& b, const device_buffer_t& c,
                 double ms_whole, cudaStream_t s) {
  const size_t n = size_t(1) << L, bytes = n * sizeof(fr_t), chunk = size_t(1) << 22;
  ntt_tuning_t tune;
  tune.tables = ntt_tables_t::lean;
  device_buffer_t dom(ntt_domain_bytes(L, tune.tables));
  check_cuda(ntt_domain_init(dom.get(), L, root_convention_t::bellman, s, tune.tables), "domain");
  pinned_t ha(bytes), hb(bytes), hc(bytes);
  const device_buffer_t* from[] = {&a, &b, &c};
  void* to[] = {ha.p, hb.p, hc.p};
  for (int k = 0; k < 3; ++k)
    check_cuda(cudaMemcpyAsync(to[k], from[k]->get(), bytes, cudaMemcpyDeviceToHost, s), "copy");
  for (unsigned vectors : {1u, 2u}) {
    const size_t need = ntt_h_passes_scratch_bytes(L, chunk, vectors);
    device_buffer_t scratch(need);
    const double ms = time_ms(s, 3, [&] {
      check_cuda(ntt_h_passes(static_cast<fr_t*>(ha.p), static_cast<fr_t*>(hb.p), static_cast<const fr_t*>(hc.p), L,
                              root_convention_t::bellman, dom.get(), scratch.get(), need, chunk, s, tune, vectors),
                 "ntt_h_passes");
    });
    row(vectors == 1 ? "ntt_h_passes1" : "ntt_h_passes2", double(n), ms, ms / ms_whole);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<unsigned> logs = log_sizes(argc, argv, {20, 21, 22, 23, 24, 25, 26, 27});
    stream_t s;
    const ceilings_t ceil = measure_ceilings(s.get(), true);
    for (unsigned L : logs) {
      const size_t n = size_t(1) << L;
      const double floor_ms = 2.0 * 32.0 * double(n) / (ceil.copy_gbps * 1e9) * 1e3;
      device_buffer_t dom(ntt_domain_bytes(L)), a(n * sizeof(fr_t));
      check_cuda(ntt_domain_init(dom.get(), L, root_convention_t::bellman, s.get()), "domain");
      fill_scalars(a.as<fr_t>(), n, 0, 99, s.get());
      const double ms = time_ms(s.get(), 5, [&] {
        check_cuda(ntt(a.as<fr_t>(), L, ntt_dir_t::forward, ntt_order_t::natural_to_reversed, ntt_coset_t::none,
                       dom.get(), s.get()),
                   "ntt");
      });
      row("ntt_fwd_nr", double(n), ms, ms / floor_ms);
      const double ms_i = time_ms(s.get(), 5, [&] {
        check_cuda(ntt(a.as<fr_t>(), L, ntt_dir_t::inverse, ntt_order_t::reversed_to_natural, ntt_coset_t::coset,
                       dom.get(), s.get()),
                   "intt");
      });
      row("ntt_inv_coset_rn", double(n), ms_i, ms_i / floor_ms);
      if (L <= 24 || L == 27) {
        device_buffer_t b(n * sizeof(fr_t)), c(n * sizeof(fr_t));
        fill_scalars(b.as<fr_t>(), n, 0, 7, s.get());
        fill_scalars(c.as<fr_t>(), n, 0, 8, s.get());
        double ms_bellman = 0;
        for (auto conv : {root_convention_t::bellman, root_convention_t::snarkjs}) {
          check_cuda(ntt_domain_init(dom.get(), L, conv, s.get()), "domain");
          const double ms_h = time_ms(s.get(), 3, [&] {
            check_cuda(ntt_h(a.as<fr_t>(), b.as<fr_t>(), c.as<fr_t>(), L, conv, dom.get(), s.get()), "ntt_h");
          });
          if (conv == root_convention_t::bellman) ms_bellman = ms_h;
          row(conv == root_convention_t::bellman ? "ntt_h_bellman" : "ntt_h_snarkjs", double(n), ms_h,
              ms_h / (7 * floor_ms));
        }
        if (L == 24 || L == 27) passes_rows(L, a, b, c, ms_bellman, s.get());
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_ntt: %s\n", e.what());
    return 1;
  }
}
