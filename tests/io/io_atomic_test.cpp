// Atomic output: a successful write replaces the target; a failed one
// (producer throws, rename onto a directory, missing folder, writer given a
// bad structure) leaves neither the target nor any "*.tmp.*" file behind,
// and an existing target untouched.
#include <gtest/gtest.h>

#include "io/atomic_file.hpp"
#include "io/r1cs.hpp"
#include "io/zkey.hpp"
#include "io_test_util.hpp"

namespace starzk::test {
namespace {

size_t entries(const fs::path& dir) {
  return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(atomic_file, success_replaces_target) {
  scratch_t tmp;
  write_file_atomic(tmp / "a.txt", std::string_view("first"));
  write_file_atomic(tmp / "a.txt", std::string_view("second"));
  EXPECT_EQ(read_text(tmp / "a.txt"), "second");
  EXPECT_EQ(entries(tmp.dir()), 1u);
}

TEST(atomic_file, producer_failure_leaves_nothing) {
  scratch_t tmp;
  EXPECT_THROW(write_file_atomic(tmp / "b.bin",
                                 [](atomic_file_t& f) {
                                   f.write("partial", 7);
                                   EXPECT_TRUE(fs::exists(f.temp_path()));
                                   throw std::runtime_error("producer failed");
                                 }),
               std::runtime_error);
  EXPECT_EQ(entries(tmp.dir()), 0u);

  // An existing target survives a failed rewrite unchanged.
  write_file_atomic(tmp / "b.bin", std::string_view("old"));
  EXPECT_THROW(write_file_atomic(tmp / "b.bin", [](atomic_file_t&) { throw std::runtime_error("x"); }),
               std::runtime_error);
  EXPECT_EQ(read_text(tmp / "b.bin"), "old");
  EXPECT_EQ(entries(tmp.dir()), 1u);
}

TEST(atomic_file, rename_failure_leaves_no_temporary) {
  scratch_t tmp;
  fs::create_directories(tmp / "target" / "inside");  // rename onto a non-empty directory fails
  expect_io_error([&] { write_file_atomic(tmp / "target", std::string_view("data")); }, tmp / "target", "rename");
  EXPECT_EQ(entries(tmp.dir()), 1u);  // only the directory
  EXPECT_TRUE(fs::is_directory(tmp / "target"));
}

TEST(atomic_file, missing_folder) {
  scratch_t tmp;
  const fs::path p = tmp / "no" / "such" / "x.zkey";
  expect_io_error([&] { write_file_atomic(p, std::string_view("data")); }, p, "cannot create temporary");
  EXPECT_EQ(entries(tmp.dir()), 0u);
}

TEST(atomic_file, writers_refuse_bad_structures_without_output) {
  scratch_t tmp;
  r1cs_t r;
  r.n_vars = 3;
  r.n_constraints = 1;
  r.a = r.b = r.c = sparse_matrix_t::empty(1, 3);
  r.a.row_ptr = {0, 1};
  r.a.col = {7};  // column out of range
  r.a.val = {fr_t::one()};
  expect_io_error([&] { write_r1cs(tmp / "bad.r1cs", r); }, tmp / "bad.r1cs", "matrix A: column 7 out of range");
  proving_key_t k;  // empty: sizes do not fit
  k.n_vars = 2;
  k.domain_size = 4;
  expect_io_error([&] { write_zkey(tmp / "bad.zkey", k); }, tmp / "bad.zkey", "cannot write key");
  EXPECT_EQ(entries(tmp.dir()), 0u);
}

}  // namespace
}  // namespace starzk::test
