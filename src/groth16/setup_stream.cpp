// setup_to(): a development key handed to a sink piece by piece, for keys
// that must never be held in memory (see setup.hpp).
//
// Steps:
//   1. the scalar phase (setup_detail::compute_scalars): u_j = A_j(τ),
//      v_j = B_j(τ), and the l, h, ic scalars;
//   2. densities: wire j has an A point iff u_j ≠ 0, B points iff v_j ≠ 0
//      (a zero scalar gives O, which packed formats do not store);
//   3. u and v are compacted in place to their non-zero entries, so the
//      fixed-base products below make only the points that exist;
//   4. the layout goes to the sink, then the products of every query, on the
//      GPU (setup_gpu.hpp, streamed) or the CPU (groth16/fixed_base.hpp).
// Peak memory: the scalars (about 5 · 32 · n_vars bytes) and the pieces in
// flight; the points live only in the sink.
#include <chrono>

#include "groth16/fixed_base.hpp"
#include "groth16/setup.hpp"
#include "groth16/setup_detail.hpp"
#include "groth16/setup_gpu.hpp"
#include "util/parallel.hpp"

namespace starzk {

namespace {

// Sets the bits of the non-zero entries, moves those entries to the front
// (in order) and shrinks v to them; returns their number.
uint64_t compact_nonzero(std::vector<fr_t>& v, std::vector<uint64_t>& density) {
  density.assign((v.size() + 63) / 64, 0);
  uint64_t k = 0;
  for (uint64_t j = 0; j < v.size(); ++j) {
    if (v[j].is_zero()) continue;
    density[j / 64] |= uint64_t(1) << (j % 64);
    v[k++] = v[j];
  }
  v.resize(k);
  v.shrink_to_fit();
  return k;
}

}  // namespace

void setup_to(const r1cs_t& cs, root_convention_t convention, const setup_options_t& options, key_sink_t& sink) {
  setup_to(cs, convention, random_toxic_waste(), options, sink);
}

void setup_to(const r1cs_t& cs, root_convention_t convention, const toxic_waste_t& tw, const setup_options_t& options,
              key_sink_t& sink) {
  const auto t_start = std::chrono::steady_clock::now();
  const unsigned threads = options.threads;
  const bool use_gpu = setup_detail::want_gpu(options.device);
  setup_detail::scalars_t sc = setup_detail::compute_scalars(cs, convention, tw, threads);
  const double scalars_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();

  key_layout_t layout;
  layout.convention = convention;
  layout.n_vars = cs.n_vars;
  layout.n_public = cs.n_public;
  layout.domain_size = sc.n;
  layout.h_count = sc.h.size();
  layout.n_a = compact_nonzero(sc.u, layout.a_density);
  layout.n_b = compact_nonzero(sc.v, layout.b_density);
  layout.head = setup_detail::head_points(tw);
  sink.begin(layout);

  auto to = [&sink](key_query_t q) { return [&sink, q](uint64_t first, auto pts) { sink.put(q, first, pts); }; };
  const auto t_fixed = std::chrono::steady_clock::now();
  std::string device;
  if (use_gpu) {
    setup_detail::query_sinks_t sinks{to(key_query_t::a), to(key_query_t::b_g1), to(key_query_t::l),
                                      to(key_query_t::h), to(key_query_t::ic),   to(key_query_t::b_g2)};
    device = setup_detail::fixed_base_stream_gpu({sc.u, sc.v, sc.l, sc.h, sc.ic}, sinks, options.gpu_chunk, threads);
  } else {
    device = "CPU (" + std::to_string(resolve_threads(threads)) + " threads)";
    const fixed_base_t<g1_params> g1(g1_affine_t::generator());
    const fixed_base_t<g2_params> g2(g2_affine_t::generator());
    g1.mul_to(sc.u, threads, to(key_query_t::a));
    g1.mul_to(sc.v, threads, to(key_query_t::b_g1));
    g2.mul_to(sc.v, threads, to(key_query_t::b_g2));
    g1.mul_to(sc.l, threads, to(key_query_t::l));
    g1.mul_to(sc.h, threads, to(key_query_t::h));
    g1.mul_to(sc.ic, threads, to(key_query_t::ic));
  }
  if (options.info) {
    const auto now = std::chrono::steady_clock::now();
    options.info->used_gpu = use_gpu;
    options.info->scalars_s = scalars_s;
    options.info->device = device;
    options.info->fixed_base_s = std::chrono::duration<double>(now - t_fixed).count();
    options.info->total_s = std::chrono::duration<double>(now - t_start).count();
  }
}

}  // namespace starzk
