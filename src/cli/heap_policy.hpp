// The heap of the starzk process: large blocks from one heap that keeps
// what is freed, backed by 2 MiB pages.
//
// Why: a proof allocates and frees tens of megabytes per phase (the key's
// vectors, the MSMs' lane tables and buckets, the H phase's vectors).
// glibc serves every block past its mmap threshold (128 KiB, growing to
// 32 MiB) with a fresh mapping that is faulted in 4 KiB at a time and
// unmapped again on free, and each fault costs a kernel entry (more on a
// VM). On the 2-core VM a warm 2^15 proof took ~12.7k page faults and
// spent ~17% of its samples in them (docs/benchmarks.md, "Page faults").
//
// What prepare_heap does, once, when `starzk prove` makes one proof (a
// process-wide policy: the library layers allocate as before and know
// nothing of it; batches, with their memory budgets, many threads and
// long lives, keep glibc's defaults):
//   - mallopt: no block is mmap'd on its own (M_MMAP_THRESHOLD at 2 GiB),
//     freed memory is not given back to the system (M_TRIM_THRESHOLD), and
//     every thread allocates from the main heap (M_ARENA_MAX = 1; the
//     threads allocate a few large blocks, not many small ones);
//   - the heap is grown once by `reserve` bytes (one block allocated and
//     freed) and that range is advised MADV_HUGEPAGE, so where transparent
//     huge pages are "madvise" or "always" Linux backs it with 2 MiB pages
//     as it is touched (one fault per 2 MiB; the memory is taken only when
//     used).
// Failures are silent: the policy only changes speed.
#pragma once

#include <cstddef>

namespace starzk::cli {

inline constexpr size_t default_heap_reserve = size_t(512) << 20;

void prepare_heap(size_t reserve = default_heap_reserve);

}  // namespace starzk::cli
