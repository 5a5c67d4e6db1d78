// mappable_vector_t: a vector of a trivial type whose elements either live
// in memory it owns (an uninit_vector_t) or, read-only, in memory someone
// else keeps alive: a file mapped into the process, above all.
//
// Why: a proving key's queries are most of a proof's memory, and a key
// file already holds them in the very bytes the prover reads (the key cache
// and, for a key validated before, a .zkey's point sections). Copying them
// into the heap costs a fresh page per 4 KiB, and on virtual machines the
// first touch of fresh memory is the slowest thing a warm proof does (the
// host backs and zeroes each page), while pages of a file in the page
// cache are mapped at a fraction of that. A borrowed vector is those pages.
//
// Semantics: reads never copy. The first mutable access (non-const data(),
// operator[], begin/end, back, resize, assign, pop_back) of a borrowed
// vector copies the elements into owned memory first, so code that writes a
// key's queries stays correct, only slower; the prover reads through const
// access and never copies. Copying a borrowed vector shares the view (and
// its keeper); comparisons are element-wise whatever the storage.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "util/uninit_vector.hpp"

namespace starzk {

template <class T>
class mappable_vector_t {
  static_assert(std::is_trivially_copyable_v<T>, "elements must be trivially copyable");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;

  mappable_vector_t() = default;
  mappable_vector_t(uninit_vector_t<T> v) : own_(std::move(v)) {}  // NOLINT: implicit, as a vector
  mappable_vector_t(std::initializer_list<T> v) : own_(v) {}
  mappable_vector_t(const mappable_vector_t&) = default;
  mappable_vector_t& operator=(const mappable_vector_t&) = default;
  mappable_vector_t(mappable_vector_t&& o) noexcept { *this = std::move(o); }
  mappable_vector_t& operator=(mappable_vector_t&& o) noexcept {
    if (this == &o) return *this;
    own_ = std::move(o.own_);
    view_ = std::exchange(o.view_, {});
    keeper_ = std::move(o.keeper_);
    lent_ = std::exchange(o.lent_, false);
    o.own_.clear();
    return *this;
  }

  // A vector over `view`, which stays valid while `keeper` lives (a null
  // keeper: the caller keeps the memory alive as long as the vector).
  static mappable_vector_t borrow(std::span<const T> view, std::shared_ptr<const void> keeper) {
    mappable_vector_t v;
    v.view_ = view;
    v.keeper_ = std::move(keeper);
    v.lent_ = true;
    return v;
  }
  bool borrowed() const { return lent_; }

  size_t size() const { return borrowed() ? view_.size() : own_.size(); }
  bool empty() const { return size() == 0; }
  const T* data() const { return borrowed() ? view_.data() : own_.data(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }
  const T& operator[](size_t i) const { return data()[i]; }
  const T& back() const { return data()[size() - 1]; }
  operator std::span<const T>() const { return {data(), size()}; }  // NOLINT: implicit, as a vector's

  T* data() { return owned().data(); }
  T* begin() { return data(); }
  T* end() { return data() + size(); }
  T& operator[](size_t i) { return owned()[i]; }
  T& back() { return owned().back(); }
  void resize(size_t n) { owned().resize(n); }
  void assign(size_t n, const T& value) { release(), own_.assign(n, value); }
  template <class It>
  void assign(It first, It last) {
    release(), own_.assign(first, last);
  }
  void pop_back() { owned().pop_back(); }
  void clear() { release(); }

  bool operator==(const mappable_vector_t& o) const { return std::ranges::equal(span(), o.span()); }

 private:
  std::span<const T> span() const { return *this; }
  // Owned storage, the borrowed elements copied into it first.
  uninit_vector_t<T>& owned() {
    if (lent_) {
      own_.assign(view_.begin(), view_.end());
      view_ = {}, keeper_.reset(), lent_ = false;
    }
    return own_;
  }
  void release() { uninit_vector_t<T>().swap(own_), view_ = {}, keeper_.reset(), lent_ = false; }

  uninit_vector_t<T> own_;
  std::span<const T> view_;
  std::shared_ptr<const void> keeper_;
  bool lent_ = false;
};

}  // namespace starzk
