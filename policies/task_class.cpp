// task_class.cpp: where resource classes and task tags live at run time.
//
// Codelet classes sit in a fixed open-addressed table keyed by the
// codelet's address: 4096 slots of (atomic key, atomic class). Writers
// claim a slot with a compare-exchange on the key, readers probe without a
// lock, so declaring a class and looking one up are both thread-safe and
// cost a hash and, almost always, one probe. Codelets are created once and
// live as long as the program, so an address never changes meaning.
// Task tags live in task_tag.cpp.

#include <starpu.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "policies/resource_class.h"

namespace {

constexpr std::size_t k_slots = 4096;  // power of two

struct class_slot_t {
  std::atomic<const void*> key{nullptr};
  std::atomic<int> rc{-1};  // -1 until the claiming writer publishes it
};

class_slot_t g_slots[k_slots];

// Fibonacci hashing of the address (Knuth, TAOCP vol. 3, 6.4): multiply by
// 2^64 / golden ratio and keep the top bits; codelet addresses are aligned,
// so the low bits alone would collide.
std::size_t slot_of(const void* p) {
  auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p));
  return static_cast<std::size_t>((x * 0x9E3779B97F4A7C15ull) >> 52) & (k_slots - 1);
}

const char* const k_names[STARZK_RC_COUNT] = {"light", "gpu_chain", "memory_heavy", "dealloc"};

}  // namespace

extern "C" {

const char* starzk_resource_class_name(enum starzk_resource_class rc) {
  int i = static_cast<int>(rc);
  return (i >= 0 && i < STARZK_RC_COUNT) ? k_names[i] : nullptr;
}

int starzk_resource_class_from_name(const char* name, enum starzk_resource_class* rc) {
  if (!name) return -1;
  for (int i = 0; i < STARZK_RC_COUNT; ++i)
    if (std::strcmp(name, k_names[i]) == 0) {
      if (rc) *rc = static_cast<starzk_resource_class>(i);
      return 0;
    }
  return -1;
}

int starzk_codelet_set_class(const struct starpu_codelet* cl, enum starzk_resource_class rc) {
  if (!cl || static_cast<int>(rc) < 0 || static_cast<int>(rc) >= STARZK_RC_COUNT) return -EINVAL;
  std::size_t i = slot_of(cl);
  for (std::size_t probe = 0; probe < k_slots; ++probe, i = (i + 1) & (k_slots - 1)) {
    const void* seen = g_slots[i].key.load(std::memory_order_acquire);
    if (seen == nullptr) {
      // Claim the slot first, then publish the class: a reader that
      // meets the key before the class reads -1 and answers LIGHT, as
      // it would have a moment earlier.
      const void* expected = nullptr;
      if (g_slots[i].key.compare_exchange_strong(expected, cl, std::memory_order_acq_rel, std::memory_order_acquire)) {
        g_slots[i].rc.store(rc, std::memory_order_release);
        return 0;
      }
      seen = expected;  // somebody else took the slot: fall through
    }
    if (seen == cl) {
      g_slots[i].rc.store(rc, std::memory_order_release);
      return 0;
    }
  }
  return -ENOSPC;
}

enum starzk_resource_class starzk_codelet_get_class(const struct starpu_codelet* cl) {
  if (!cl) return STARZK_RC_LIGHT;
  std::size_t i = slot_of(cl);
  for (std::size_t probe = 0; probe < k_slots; ++probe, i = (i + 1) & (k_slots - 1)) {
    const void* seen = g_slots[i].key.load(std::memory_order_acquire);
    if (seen == cl) {
      int rc = g_slots[i].rc.load(std::memory_order_acquire);
      return rc < 0 ? STARZK_RC_LIGHT : static_cast<starzk_resource_class>(rc);
    }
    if (seen == nullptr) break;
  }
  return STARZK_RC_LIGHT;
}

}  // extern "C"
