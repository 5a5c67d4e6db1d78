// cuda_support.cpp: the CUDA workers' scratch buffers and the CUDA error
// check (see cuda_support.hpp).
#include "codelets/cuda_support.hpp"

#include <mutex>
#include <stdexcept>
#include <string>

namespace starzk::codelets::detail {

#if STARZK_CODELETS_CUDA

namespace {

struct scratch_t {
  uintptr_t ptr = 0;
  size_t bytes = 0;
  unsigned node = 0;
};

// Indexed by worker id; an entry is touched only by its own worker (tasks)
// or by release_worker_scratch, which runs on that worker too.
scratch_t g_scratch[STARPU_NMAXWORKERS];

void free_scratch(scratch_t& s) {
  if (s.ptr == 0) return;
  // Kernels of earlier tasks may still use it: drain the stream first.
  cudaStreamSynchronize(starpu_cuda_get_local_stream());
  starpu_free_on_node_flags(s.node, s.ptr, s.bytes, STARPU_MALLOC_COUNT);
  s = {};
}

void release_on_worker(void*) {
  const int w = starpu_worker_get_id();
  if (w >= 0) free_scratch(g_scratch[w]);
}

}  // namespace

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void* worker_scratch(size_t bytes) {
  const int w = starpu_worker_get_id();
  if (w < 0 || starpu_worker_get_type(w) != STARPU_CUDA_WORKER)
    throw std::logic_error("worker_scratch called outside a CUDA worker");
  scratch_t& s = g_scratch[w];
  if (bytes == 0) bytes = 1;
  if (s.bytes >= bytes) return reinterpret_cast<void*>(s.ptr);
  free_scratch(s);
  // Grow by 1/8 beyond the request so that slightly larger tasks reuse it.
  const size_t want = bytes + bytes / 8;
  const unsigned node = starpu_worker_get_memory_node(unsigned(w));
  uintptr_t p = starpu_malloc_on_node_flags(node, want, STARPU_MALLOC_COUNT);
  if (p == 0) {
    starpu_memchunk_tidy(node);  // give StarPU's cached buffers back, then retry
    p = starpu_malloc_on_node_flags(node, want, STARPU_MALLOC_COUNT);
  }
  if (p == 0)
    throw std::runtime_error("cannot allocate " + std::to_string(want >> 20) + " MiB of device scratch on memory node " +
                             std::to_string(node));
  s = {p, want, node};
  return reinterpret_cast<void*>(p);
}

void release_worker_scratch() {
  if (starpu_cuda_worker_get_count() == 0) return;
  starpu_execute_on_each_worker(&release_on_worker, nullptr, STARPU_CUDA);
}

#else

void release_worker_scratch() {}

#endif

}  // namespace starzk::codelets::detail
