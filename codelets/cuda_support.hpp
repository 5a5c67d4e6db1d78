// cuda_support.hpp: what the CUDA bodies of the codelets share (private to
// codelets/): the switch saying whether they exist, the worker's stream,
// CUDA error checks, and the worker's device scratch.
//
// CUDA bodies exist when starzk was built with its kernels (STARZK_HAVE_CUDA,
// target starzk_cuda) and StarPU with CUDA (STARPU_USE_CUDA); otherwise each
// codelet has its CPU body alone and STARZK_CODELETS_CUDA is 0.
//
// Bodies are STARPU_CUDA_ASYNC: they only enqueue kernels on the worker's
// stream (starpu_cuda_get_local_stream()) and return; StarPU waits on the
// stream before it marks the task done. The MSM bodies are the exception:
// the launchers wait for the stream inside (msm_device.hpp), so those
// codelets are declared synchronous and wait for their stream at the end.
// The kernels come from cuda/ (plain device pointers, a stream,
// caller-provided scratch), the pointers from the task's buffers, which
// StarPU has made valid on the worker's GPU.
//
// Scratch: the MSMs need working memory (~18 GiB for a whole 2^26 G1 MSM;
// codelets/msm_device.hpp runs them in pieces that fit). StarPU's STARPU_SCRATCH buffers are per worker of every
// kind, so a codelet that also has a CPU body would get that much main RAM
// per CPU worker. Instead each CUDA worker keeps one device buffer, taken
// from StarPU's allocator (starpu_malloc_on_node_flags with
// STARPU_MALLOC_COUNT, so StarPU counts it against the device's memory and
// the GPU-lock policy's prefetch rule sees it), grown when a task needs
// more and reused by every task of that worker: tasks of one worker run in
// order on its one stream, so they never share it at once.
#pragma once

#include <starpu.h>

#include <cstddef>
#include <cstdint>

#if defined(STARZK_HAVE_CUDA) && defined(STARPU_USE_CUDA)
#define STARZK_CODELETS_CUDA 1
#include <cuda_runtime_api.h>
#else
#define STARZK_CODELETS_CUDA 0
#endif

namespace starzk::codelets::detail {

#if STARZK_CODELETS_CUDA
// Throws std::runtime_error("<what>: <CUDA error string>") unless e == cudaSuccess.
void check_cuda(cudaError_t e, const char* what);

// The calling CUDA worker's stream.
inline cudaStream_t worker_stream() { return starpu_cuda_get_local_stream(); }

// At least `bytes` of device scratch for the calling CUDA worker, valid
// until its next call from this worker, and never more than `limit` bytes
// held (a larger buffer of an earlier task is given back first; a new one
// is exactly `bytes`). Null when the device cannot provide it (after
// giving StarPU's cached buffers back and retrying once). limit >= bytes.
void* try_worker_scratch(size_t bytes, size_t limit = SIZE_MAX);
// The same; throws when the device cannot provide it.
void* worker_scratch(size_t bytes);
// Device bytes the calling CUDA worker could hold as scratch now: what
// StarPU says is free on its memory node (starpu_memory_get_available,
// which honours STARPU_LIMIT_CUDA_MEM; the driver's free memory where
// StarPU keeps no count) plus the scratch the worker already holds.
size_t worker_scratch_room();
// Gives the calling CUDA worker's scratch back (after its stream drains)
// if it holds more than `limit` bytes: a body that took more than the
// memory plan's scratch for its own run returns it before the next task's
// buffers are allocated.
void release_scratch_above(size_t limit);

// Synchronous copies on the worker's stream (the host fallback of a body).
void copy_to_host(void* h, const void* d, size_t bytes);
void copy_to_device(void* d, const void* h, size_t bytes);
#endif

// A can_execute for codelets whose CUDA body needs all its buffers on the
// device at once and no more (spmv, ntt_h): a CUDA worker refuses a task
// whose buffers add up to more than its device holds
// (starpu_memory_get_total, which honours STARPU_LIMIT_CUDA_MEM), so that
// StarPU places it on a CPU worker (or a larger GPU) instead of waiting
// for memory that never comes: at 2^27 the witness map's w, a, b, c and
// coded CSR take ~25 GB. True for CPU workers, and for a codelet pinned to
// the GPUs (--place spmv=cuda: nowhere else to go).
int buffers_fit_device(unsigned worker, starpu_task* task, unsigned nimpl);
// Whether the task may run on CUDA workers only (its codelet's or the
// task's `where`, e.g. set by --place): a can_execute must not refuse it.
bool pinned_to_cuda(const starpu_task* task);

// A pop prologue (starpu_task::prologue_callback_pop_func, which StarPU
// calls on the worker's thread when it takes the task, before it fetches
// or allocates the task's buffers): on a CUDA worker, its scratch goes
// back first (after its stream drains), so that buffers StarPU allocates
// there for the task find the room the memory plan counted for them (the
// MSMs' scratch of the chain before is what would fill it). The next body
// that wants scratch takes it again. A no-op elsewhere and without CUDA
// bodies.
void release_scratch_on_pop(void* arg) noexcept;

// Frees every CUDA worker's scratch (waits for their streams first). Call
// from the application thread while StarPU runs, with no task in flight
// (the key bundle does it when it goes). A no-op without CUDA bodies.
void release_worker_scratch();

}  // namespace starzk::codelets::detail
