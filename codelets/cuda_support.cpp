// cuda_support.cpp: the CUDA workers' scratch buffers and the CUDA error
// check (see cuda_support.hpp).
#include "codelets/cuda_support.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>

#include "codelets/activity.hpp"

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
  // Kernels of earlier tasks may still use it: drain the stream first. A
  // drain that fails (a kernel's fault, which stays with the context) is
  // said once; the scratch goes back all the same, and the task whose
  // kernel failed reports its own error.
  if (const cudaError_t e = cudaStreamSynchronize(starpu_cuda_get_local_stream()); e != cudaSuccess) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      try {
        report_note(std::string("a CUDA worker's stream failed before its scratch was freed: ") +
                    cudaGetErrorString(e) + " (said once)");
      } catch (...) {  // callers are noexcept; the note is all that is lost
      }
    }
  }
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

void* try_worker_scratch(size_t bytes, size_t limit) {
  const int w = starpu_worker_get_id();
  if (w < 0 || starpu_worker_get_type(w) != STARPU_CUDA_WORKER)
    throw std::logic_error("worker_scratch called outside a CUDA worker");
  scratch_t& s = g_scratch[w];
  if (bytes == 0) bytes = 1;
  if (limit < bytes) limit = bytes;
  if (s.bytes >= bytes && s.bytes <= limit) return reinterpret_cast<void*>(s.ptr);
  free_scratch(s);
  // Exactly the request: the memory plan leaves the device little beyond
  // what it counted (dag/key_residency.hpp), and StarPU, when an allocation
  // does not fit, evicts twice the buffer's size, resident key queries
  // included. A larger task later frees this buffer and takes its own.
  const size_t want = bytes;
  const unsigned node = starpu_worker_get_memory_node(unsigned(w));
  uintptr_t p = starpu_malloc_on_node_flags(node, want, STARPU_MALLOC_COUNT);
  if (p == 0) {
    starpu_memchunk_tidy(node);  // give StarPU's cached buffers back, then retry
    p = starpu_malloc_on_node_flags(node, want, STARPU_MALLOC_COUNT);
  }
  if (p == 0) return nullptr;
  s = {p, want, node};
  return reinterpret_cast<void*>(p);
}

void* worker_scratch(size_t bytes) {
  if (void* p = try_worker_scratch(bytes)) return p;
  const unsigned node = starpu_worker_get_memory_node(unsigned(starpu_worker_get_id()));
  throw std::runtime_error("cannot allocate " + std::to_string((bytes + bytes / 8) >> 20) +
                           " MiB of device scratch on memory node " + std::to_string(node));
}

size_t worker_scratch_room() {
  const int w = starpu_worker_get_id();
  if (w < 0 || starpu_worker_get_type(w) != STARPU_CUDA_WORKER)
    throw std::logic_error("worker_scratch_room called outside a CUDA worker");
  const unsigned node = starpu_worker_get_memory_node(unsigned(w));
  starpu_ssize_t avail = starpu_memory_get_available(node);
  if (avail < 0) {  // StarPU keeps no count for this node: ask the driver
    size_t free_b = 0, total_b = 0;
    check_cuda(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    avail = starpu_ssize_t(free_b);
  }
  return size_t(avail) + g_scratch[w].bytes;
}

void copy_to_host(void* h, const void* d, size_t bytes) {
  if (bytes == 0) return;
  check_cuda(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, worker_stream()), "cudaMemcpyAsync (to host)");
  check_cuda(cudaStreamSynchronize(worker_stream()), "cudaStreamSynchronize");
}

void copy_to_device(void* d, const void* h, size_t bytes) {
  if (bytes == 0) return;
  check_cuda(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, worker_stream()), "cudaMemcpyAsync (to device)");
  check_cuda(cudaStreamSynchronize(worker_stream()), "cudaStreamSynchronize");
}

void release_worker_scratch() {
  if (starpu_cuda_worker_get_count() == 0) return;
  starpu_execute_on_each_worker(&release_on_worker, nullptr, STARPU_CUDA);
}

void release_scratch_above(size_t limit) {
  const int w = starpu_worker_get_id();
  if (w < 0 || starpu_worker_get_type(w) != STARPU_CUDA_WORKER)
    throw std::logic_error("release_scratch_above called outside a CUDA worker");
  if (g_scratch[w].bytes > limit) free_scratch(g_scratch[w]);
}

void release_scratch_on_pop(void*) noexcept {
  const int w = starpu_worker_get_id();
  if (w >= 0 && starpu_worker_get_type(w) == STARPU_CUDA_WORKER) free_scratch(g_scratch[w]);
}

#else

void release_worker_scratch() {}
void release_scratch_on_pop(void*) noexcept {}

#endif

bool pinned_to_cuda(const starpu_task* task) {
  const uint32_t where = task->where != -1 ? uint32_t(task->where) : task->cl->where;
  return where != 0 && !(where & STARPU_CPU);
}

int buffers_fit_device(unsigned worker, starpu_task* task, unsigned /*nimpl*/) {
  if (starpu_worker_get_type(int(worker)) != STARPU_CUDA_WORKER || pinned_to_cuda(task)) return 1;
  const starpu_ssize_t total = starpu_memory_get_total(starpu_worker_get_memory_node(worker));
  if (total <= 0) return 1;  // StarPU keeps no count: nothing to go by
  uint64_t bytes = 0;
  for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); ++i)
    bytes += uint64_t(starpu_data_get_size(STARPU_TASK_GET_HANDLE(task, i)));
  return bytes <= uint64_t(total) ? 1 : 0;
}

}  // namespace starzk::codelets::detail
