// uninit_vector_t: a std::vector whose resize leaves new elements of a
// trivial type unwritten, and parallel_fill to write them on every core.
//
// Why: a sector-scale proving key holds ~77 GB of points. std::vector's
// resize value-initialises, which zero-fills on one thread; on a fresh
// machine (a virtual machine above all) that pass is also the first touch
// of every page, at ~1 GB/s, so a key's queries cost over a minute before a
// single point is decoded into them. With this allocator resize only
// allocates; whoever fills the vector next (a decoder writing every element
// on all cores, or parallel_fill) touches the pages in parallel.
//
// Only element types that are trivially default-constructible are allowed:
// for them "unwritten" is a valid (if indeterminate) value that the caller
// overwrites before reading. Construction with arguments (push_back,
// assign, insert) behaves as std::allocator's.
#pragma once

#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/parallel.hpp"

namespace starzk {

template <class T>
struct uninit_allocator_t : std::allocator<T> {
  static_assert(std::is_trivially_default_constructible_v<T>, "elements must be trivially default-constructible");
  using value_type = T;
  template <class U>
  struct rebind {
    using other = uninit_allocator_t<U>;
  };
  uninit_allocator_t() noexcept = default;
  template <class U>
  uninit_allocator_t(const uninit_allocator_t<U>&) noexcept {}

  // Default construction: default-initialisation, which for a trivial type
  // writes nothing.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T, class U>
bool operator==(const uninit_allocator_t<T>&, const uninit_allocator_t<U>&) noexcept {
  return true;
}

template <class T>
using uninit_vector_t = std::vector<T, uninit_allocator_t<T>>;

// Writes `value` into every element of `v` on `threads` threads (0: all
// cores), in ranges of whole pages' worth, so each page is first touched
// by the thread that fills it.
template <class T>
void parallel_fill(std::span<T> v, const T& value, unsigned threads = 0) {
  parallel_for(
      v.size(), threads,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i) v[i] = value;
      },
      size_t(1) << 16);
}

}  // namespace starzk
