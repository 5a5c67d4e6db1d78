// Internal to starzk_groth16: the device half of setup(). setup.cpp
// computes the query scalars on the CPU and hands them here when the
// fixed-base products run on a CUDA device. The functions call the
// installed GPU backend (gpu_backend.hpp); without one they report that no
// device is usable (gpu_present) or throw saying so.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "groth16/keys.hpp"

namespace starzk::setup_detail {

// The scalars of the queries: a = u·G1, b_g1 = v·G1, b_g2 = v·G2, l, h, ic (G1).
struct query_scalars_t {
  std::span<const fr_t> u, v, l, h, ic;
};

// True when a CUDA device can be used; otherwise *why (if given) says why.
bool gpu_present(std::string* why);

// Fills pk.a, pk.b_g1, pk.b_g2, pk.l, pk.h and pk.vk.ic on CUDA device 0,
// `chunk` scalars at a time (0: 2^22) through pinned staging, and returns
// "GPU 0: <name>". Throws std::runtime_error naming the CUDA call that failed.
std::string fixed_base_queries_gpu(proving_key_t& pk, const query_scalars_t& s, uint64_t chunk, unsigned threads);

// The streaming form: each query's products go to its sink instead of pk,
// sink(first, pts) with pts = k[first .. first + pts.size())·G, called from
// several host threads at once with disjoint ranges.
template <class A>
using point_sink_fn = std::function<void(uint64_t first, std::span<const A> pts)>;
struct query_sinks_t {
  point_sink_fn<g1_affine_t> a, b_g1, l, h, ic;
  point_sink_fn<g2_affine_t> b_g2;
};
std::string fixed_base_stream_gpu(const query_scalars_t& s, const query_sinks_t& sinks, uint64_t chunk,
                                  unsigned threads);

}  // namespace starzk::setup_detail
