// Witness-map (SpMV) benchmark on the H200: a Filecoin-shaped circuit of 2^k
// rows (src/gen: 2^k − 329 constraints, 328 publics, nnz/row 2.38 / 1.00 /
// 2.18, witness ~99% bits), k = 20, 22, 24 or the log sizes given as
// arguments, generated in memory on the host (~0.7 s at 2^24 on 16 cores;
// the time goes to stderr) and uploaded once in both value forms
// (src/groth16/r1cs.hpp): plain (32-byte values) and coded (u16 codes into
// the circuit's dictionary of 449 values, as the generator makes it).
// CSV rows name,n,ms,ratio_to_floor, each for the plain form and, with the
// suffix _coded, the coded one:
//   spmv_bellman_abc   qap_rows_bellman (a, b, c and the input rows, one launch)
//   spmv_snarkjs_abc   qap_rows_snarkjs over the same A and B (c = a∘b fused)
//   spmv_A             spmv_fr of A alone (default tiers)
//   spmv_A_one_thread  the same with every row on one thread (the tiers' worth)
//   spmv_A_random_w    A against a random full-field witness (no 0/1 shortcut:
//                      the cost of the Fr products)
// The floor is bytes / measured device-copy rate (read + write), with bytes
// per matrix M = (4 + v)·nnz(M) + 8·rows(M) (col, values, row_ptr; v = 32
// plain, 2 coded, plus the dictionary once) + 32·n_vars (each wire read
// once) + 32·n per output written (snarkjs: + 64·n for the read of a and the
// write of c). Skipping the value where w = 0 can take a run below this
// floor; a gather that misses L2 takes it above.
#include <chrono>

#include "bench_util.hpp"
#include "gen/filecoin_shape.hpp"

using namespace starzk;
using namespace starzk::gpu;
using namespace starzk::gpu::bench;

namespace {

// A matrix on the device in its own form (val, or code and dict).
struct dev_matrix_t {
  device_buffer_t rp, col, val, code, dict;
  csr_view_t view{};
  double bytes = 0;  // (4 + 32)·nnz or (4 + 2)·nnz + dictionary, + 8·(rows + 1)
  explicit dev_matrix_t(const sparse_matrix_t& m)
      : rp(m.row_ptr.size() * 8),
        col(m.col.size() * 4),
        val(m.val.size() * sizeof(fr_t)),
        code(m.code.size() * sizeof(uint16_t)),
        dict(m.dict.size() * sizeof(fr_t)) {
    rp.upload(m.row_ptr.data(), rp.size());
    col.upload(m.col.data(), col.size());
    val.upload(m.val.data(), val.size());
    code.upload(m.code.data(), code.size());
    dict.upload(m.dict.data(), dict.size());
    view = {rp.as<const uint64_t>(), col.as<const uint32_t>(), val.as<const fr_t>(), m.n_rows};
    if (m.coded()) view = {view.row_ptr, view.col, nullptr, m.n_rows, code.as<const uint16_t>(), dict.as<const fr_t>()};
    bytes = double(rp.size() + col.size() + val.size() + code.size() + dict.size());
  }
};

uint64_t max_row(const sparse_matrix_t& m) {
  uint64_t r = 0;
  for (uint64_t i = 0; i < m.n_rows; ++i) r = std::max(r, m.row_ptr[i + 1] - m.row_ptr[i]);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<unsigned> logs = log_sizes(argc, argv, {20, 22, 24});
    stream_t s;
    const ceilings_t ceil = measure_ceilings(s.get(), true);
    const double bw = ceil.copy_gbps * 1e9;  // bytes/s, read + write
    for (unsigned L : logs) {
      const auto t0 = std::chrono::steady_clock::now();
      const gen_params_t params{L, 328, 2024};
      const r1cs_t cs = generate_circuit(params);
      const std::vector<fr_t> w = generate_witness(params, cs, 0);
      const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr,
                   "bench_cuda_spmv 2^%u: generated in %.2f s: %u constraints, %u wires, nnz %llu / %llu / %llu, "
                   "longest rows %llu / %llu / %llu\n",
                   L, gen_s, cs.n_constraints, cs.n_vars, (unsigned long long)cs.a.nnz(),
                   (unsigned long long)cs.b.nnz(), (unsigned long long)cs.c.nnz(), (unsigned long long)max_row(cs.a),
                   (unsigned long long)max_row(cs.b), (unsigned long long)max_row(cs.c));
      const size_t n = size_t(1) << L;
      device_buffer_t dw(w.size() * sizeof(fr_t)), drw(w.size() * sizeof(fr_t));
      dw.upload(w.data(), dw.size());
      fill_scalars(drw.as<fr_t>(), w.size(), 0, 77, s.get());
      device_buffer_t a(n * sizeof(fr_t)), b(n * sizeof(fr_t)), c(n * sizeof(fr_t));
      const double wire_bytes = 32.0 * double(cs.n_vars), row_bytes = 32.0 * double(n);
      auto floor_ms = [&](double bytes) { return bytes / bw * 1e3; };
      r1cs_t plain = cs;
      expand_circuit(plain);
      for (const r1cs_t* form : std::initializer_list<const r1cs_t*>{&plain, &cs}) {
        const std::string sfx = form->a.coded() ? "_coded" : "";
        const dev_matrix_t A(form->a), B(form->b), C(form->c);

        const double ms_bellman = time_ms(s.get(), 5, [&] {
          check_cuda(qap_rows_bellman(a.as<fr_t>(), b.as<fr_t>(), c.as<fr_t>(), n, A.view, B.view, C.view,
                                      cs.n_constraints, cs.n_public, dw.as<const fr_t>(), s.get()),
                     "qap_rows_bellman");
        });
        row("spmv_bellman_abc" + sfx, double(n), ms_bellman,
            ms_bellman / floor_ms(A.bytes + B.bytes + C.bytes + 3 * wire_bytes + 3 * row_bytes));

        const double ms_snarkjs = time_ms(s.get(), 5, [&] {
          check_cuda(qap_rows_snarkjs(a.as<fr_t>(), b.as<fr_t>(), c.as<fr_t>(), n, A.view, B.view, dw.as<const fr_t>(),
                                      s.get()),
                     "qap_rows_snarkjs");
        });
        row("spmv_snarkjs_abc" + sfx, double(n), ms_snarkjs,
            ms_snarkjs / floor_ms(A.bytes + B.bytes + 2 * wire_bytes + 4 * row_bytes));

        const double floor_a = floor_ms(A.bytes + wire_bytes + row_bytes);
        auto time_a = [&](const fr_t* d_w, const spmv_tuning_t& tune) {
          return time_ms(s.get(), 5,
                         [&] { check_cuda(spmv_fr(a.as<fr_t>(), n, A.view, d_w, s.get(), tune), "spmv_fr"); });
        };
        const double ms_a = time_a(dw.as<const fr_t>(), {});
        row("spmv_A" + sfx, double(n), ms_a, ms_a / floor_a);
        const double ms_a1 = time_a(dw.as<const fr_t>(), {1u << 30, 1u << 30});
        row("spmv_A_one_thread" + sfx, double(n), ms_a1, ms_a1 / floor_a);
        const double ms_ar = time_a(drw.as<const fr_t>(), {});
        row("spmv_A_random_w" + sfx, double(n), ms_ar, ms_ar / floor_a);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_spmv: %s\n", e.what());
    return 1;
  }
}
