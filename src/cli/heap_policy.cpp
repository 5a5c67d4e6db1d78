// prepare_heap (heap_policy.hpp): mallopt, then one heap growth advised
// MADV_HUGEPAGE.
#include "cli/heap_policy.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#endif

namespace starzk::cli {

void prepare_heap(size_t reserve) {
#if defined(__linux__) && defined(__GLIBC__)
  if (!mallopt(M_MMAP_THRESHOLD, INT32_MAX) || !mallopt(M_TRIM_THRESHOLD, INT32_MAX) || !mallopt(M_ARENA_MAX, 1))
    return;
  mallopt(M_TOP_PAD, 64 << 20);  // grow the heap 64 MiB at a time past the reserve
  // The block lies at the top of the heap; freed, it stays there (no
  // trimming) and later blocks are carved from it.
  // (A smaller one where the system refuses this much address space.)
  char* block = nullptr;
  for (; reserve >= (size_t(64) << 20) && block == nullptr; reserve /= 4)
    block = static_cast<char*>(std::malloc(reserve));
  if (block == nullptr) return;
  reserve *= 4;
  constexpr uintptr_t huge = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(block) + huge - 1) & ~(huge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(block) + reserve) & ~(huge - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(block);
#else
  (void)reserve;
#endif
}

}  // namespace starzk::cli
