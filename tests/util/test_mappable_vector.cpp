// mappable_vector_t (util/mappable_vector.hpp): an owned vector behaves as
// one; a borrowed one reads the lent memory in place, keeps its keeper
// alive exactly as long as it borrows, and copies the elements into memory
// of its own on the first mutable access, never writing to the lent memory.
#include <gtest/gtest.h>

#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#include "util/mappable_vector.hpp"

namespace starzk {
namespace {

using vec_t = mappable_vector_t<uint64_t>;

// Lent memory: a shared vector whose owner is the keeper.
std::shared_ptr<std::vector<uint64_t>> lender(size_t n) {
  auto v = std::make_shared<std::vector<uint64_t>>(n);
  std::iota(v->begin(), v->end(), 100);
  return v;
}

TEST(mappable_vector, owned_is_a_vector) {
  vec_t v;
  EXPECT_TRUE(v.empty());
  EXPECT_FALSE(v.borrowed());
  v.resize(5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i * i;
  v.pop_back();
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(v.back(), 9u);
  EXPECT_EQ(v, (vec_t{0, 1, 4, 9}));
  v.assign(3, 7);
  EXPECT_EQ(v, (vec_t{7, 7, 7}));
  const std::span<const uint64_t> s = v;
  EXPECT_EQ(s.data(), std::as_const(v).data());
  vec_t moved = std::move(v);
  EXPECT_TRUE(v.empty());  // NOLINT: the moved-from state is specified
  EXPECT_EQ(moved.size(), 3u);
}

TEST(mappable_vector, borrowed_reads_in_place_and_copies_on_write) {
  auto lent = lender(6);
  const uint64_t* at = lent->data();
  vec_t v = vec_t::borrow(std::span<const uint64_t>(*lent), lent);
  EXPECT_EQ(lent.use_count(), 2);
  EXPECT_TRUE(v.borrowed());
  const vec_t& cv = v;
  EXPECT_EQ(cv.data(), at);
  EXPECT_EQ(cv[2], 102u);
  EXPECT_EQ(cv.back(), 105u);
  EXPECT_EQ(std::span<const uint64_t>(cv).data(), at);
  EXPECT_EQ(cv.end() - cv.begin(), 6);

  vec_t shared = v;  // a copy shares the view and the keeper
  EXPECT_EQ(std::as_const(shared).data(), at);
  EXPECT_EQ(lent.use_count(), 3);

  v[2] = 1;  // the first write copies
  EXPECT_FALSE(v.borrowed());
  EXPECT_NE(cv.data(), at);
  EXPECT_EQ((*lent)[2], 102u);
  EXPECT_EQ(cv[2], 1u);
  EXPECT_EQ(cv[5], 105u);
  EXPECT_EQ(lent.use_count(), 2);
  EXPECT_NE(v, shared);
  EXPECT_EQ(shared, vec_t(uninit_vector_t<uint64_t>(lent->begin(), lent->end())));  // element-wise

  vec_t moved = std::move(shared);
  EXPECT_TRUE(moved.borrowed());
  EXPECT_FALSE(shared.borrowed());  // NOLINT: the moved-from state is specified
  EXPECT_TRUE(shared.empty());      // NOLINT
  moved.resize(8);
  EXPECT_FALSE(moved.borrowed());
  EXPECT_EQ(std::as_const(moved)[5], 105u);
  EXPECT_EQ(lent.use_count(), 1);
}

// A null keeper: the caller keeps the memory; the vector still borrows, and
// a self-move keeps what it holds.
TEST(mappable_vector, borrowed_without_keeper_and_self_move) {
  const std::vector<uint64_t> mine = {1, 2, 3};
  vec_t v = vec_t::borrow(std::span<const uint64_t>(mine), nullptr);
  EXPECT_TRUE(v.borrowed());
  EXPECT_EQ(std::as_const(v).data(), mine.data());
  vec_t& same = v;
  v = std::move(same);
  EXPECT_TRUE(v.borrowed());
  EXPECT_EQ(std::as_const(v)[2], 3u);
  v.back() = 4;
  EXPECT_FALSE(v.borrowed());
  EXPECT_EQ(mine[2], 3u);
  EXPECT_EQ(std::as_const(v)[2], 4u);
  v = std::move(same);  // owned now
  EXPECT_EQ(v, (vec_t{1, 2, 4}));
}

TEST(mappable_vector, every_mutation_copies_first) {
  auto lent = lender(4);
  const auto fresh = [&] { return vec_t::borrow(std::span<const uint64_t>(*lent), lent); };
  const std::vector<std::pair<const char*, void (*)(vec_t&)>> writes = {
      {"data", [](vec_t& v) { v.data()[0] = 0; }},  {"begin", [](vec_t& v) { *v.begin() = 0; }},
      {"end", [](vec_t& v) { v.end()[-4] = 0; }},   {"back", [](vec_t& v) { v.back() = 0; }},
      {"resize", [](vec_t& v) { v.resize(2); }},    {"pop_back", [](vec_t& v) { v.pop_back(); }},
      {"assign", [](vec_t& v) { v.assign(2, 0); }}, {"clear", [](vec_t& v) { v.clear(); }},
  };
  for (const auto& [name, write] : writes) {
    vec_t v = fresh();
    write(v);
    EXPECT_FALSE(v.borrowed()) << name;
    EXPECT_EQ((*lent)[0], 100u) << name;
    EXPECT_EQ((*lent)[3], 103u) << name;
  }
  EXPECT_EQ(lent.use_count(), 1);
}

}  // namespace
}  // namespace starzk
