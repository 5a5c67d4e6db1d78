// codelet_common.hpp: what every codelet file shares (private to
// codelets/): the performance model keyed by problem size, the check that
// a buffer is the home object the body reads, and the palette.
//
// Performance models are STARPU_HISTORY_BASED: StarPU records the measured
// time per (worker architecture, footprint) and the dm* policies predict
// from it. The footprint is a CRC32 of the task's problem size (e.g. the
// domain size for ntt_h, the number of bases for an MSM, with the query in
// the high bits), so one model serves every circuit size and each size gets
// its own history; size_base returns the same number for StarPU's
// regression plots (starpu_perfmodel_plot).
#pragma once

#include <starpu.h>

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include "codelets/cuda_support.hpp"
#include "codelets/partition_state.hpp"
#include "ff/fr.hpp"

#if STARZK_CODELETS_CUDA
#include "cuda/starzk_cuda.hpp"
#endif

namespace starzk::codelets::detail {

template <uint64_t (*Size)(const starpu_task*)>
uint32_t size_footprint(starpu_task* task) {
  const uint64_t s = Size(task);
  return starpu_hash_crc32c_be(uint32_t(s >> 32), starpu_hash_crc32c_be(uint32_t(s), 0));
}

template <uint64_t (*Size)(const starpu_task*)>
size_t size_base(starpu_task* task, unsigned /*nimpl*/) {
  return size_t(Size(task));
}

// Fills a zero-initialised static model (StarPU requires static storage).
template <uint64_t (*Size)(const starpu_task*)>
void init_size_model(starpu_perfmodel& m, const char* symbol) {
  m.type = STARPU_HISTORY_BASED;
  m.symbol = symbol;
  m.footprint = &size_footprint<Size>;
  m.size_base = &size_base<Size>;
}

// The CPU body reads the home object; the buffer StarPU hands it must be
// that object (partition_state.hpp explains why it always is).
inline void expect_home(void* vector_buffer, const void* home, const char* what) {
  if (reinterpret_cast<const void*>(STARPU_VECTOR_GET_PTR(vector_buffer)) != home)
    throw std::runtime_error(std::string("buffer '") + what + "' is not its main-RAM home (STARPU_USE_NUMA?)");
}

// The F_r vector a buffer holds (a, b, c: StarPU's own memory or pool buffers).
inline std::span<fr_t> fr_span(void* vector_buffer) {
  if (STARPU_VECTOR_GET_ELEMSIZE(vector_buffer) != sizeof(fr_t))
    throw std::runtime_error("buffer is not a vector of F_r elements");
  return {reinterpret_cast<fr_t*>(STARPU_VECTOR_GET_PTR(vector_buffer)), size_t(STARPU_VECTOR_GET_NX(vector_buffer))};
}

// The H phase on the host, in the key's convention (ntt/h_phase.hpp): the
// CPU body of ntt_h and ntt_h_passes, and the latter's fallback.
void h_phase_on_host(const partition_state_t& p, std::span<fr_t> a, std::span<fr_t> b, std::span<fr_t> c);
// The domain size of the partition a task works on (the H-phase models).
inline uint64_t domain_size_of(const starpu_task* task) {
  return static_cast<const partition_state_t*>(task->cl_arg)->key.pk->domain_size;
}

#if STARZK_CODELETS_CUDA
// What the CUDA bodies of ntt_h and ntt_h_passes hand the kernels: log2 of
// the domain size, the key's root convention, and the key's device NTT
// domain (buffer `domain_buffer`) with its form (full or lean tables, told
// by its size; any other size throws).
struct device_h_phase_t {
  unsigned log_n = 0;
  root_convention_t conv = root_convention_t::bellman;
  gpu::ntt_tuning_t tune;
  const void* domain = nullptr;
};
device_h_phase_t device_h_phase(const partition_state_t& p, void* domain_buffer);
#endif

// Codelet colors (0xRRGGBB), also used by the trace plot.
inline constexpr unsigned color_spmv = 0x4e79a7;
inline constexpr unsigned color_spmv_passes = 0xa0cbe8;
inline constexpr unsigned color_spmv_dev = 0x6f9fd8;
inline constexpr unsigned color_ntt_h = 0xf28e2b;
inline constexpr unsigned color_ntt_h_passes = 0xffbe7d;
inline constexpr unsigned color_prep_msm = 0x59a14f;
inline constexpr unsigned color_msm = 0xe15759;
inline constexpr unsigned color_b_g2_msm = 0xb07aa1;
inline constexpr unsigned color_assemble = 0x76b7b2;
inline constexpr unsigned color_free = 0x9c755f;

}  // namespace starzk::codelets::detail
