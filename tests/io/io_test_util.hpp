// Helpers shared by the io tests: fixture paths, byte-level file surgery on
// iden3 containers, a scratch folder, the R1CS satisfaction check, and an
// assertion that a call throws io_error naming the file and the problem.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "../test_support.hpp"
#include "groth16/r1cs.hpp"
#include "io/io_error.hpp"

namespace starzk::test {

namespace fs = std::filesystem;

inline fs::path fixture(const std::string& circuit, const std::string& file) {
  return fs::path(STARZK_TEST_DATA) / "fixtures" / circuit / file;
}

inline const std::vector<std::string>& circuits() {
  static const std::vector<std::string> v = {"multiplier", "bits", "mimc"};
  return v;
}

inline std::vector<uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// A fresh scratch folder per test, removed afterwards. A parameterised
// test's names hold '/' (prefix/suite, name/param), which would nest the
// folder under parents that the removal leaves behind: one level, '/' as '_'.
class scratch_t {
 public:
  scratch_t() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "starzk-io-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name();
    for (char& ch : name)
      if (ch == '/') ch = '_';
    dir_ = fs::temp_directory_path() / name;
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~scratch_t() { fs::remove_all(dir_); }
  fs::path operator/(const std::string& name) const { return dir_ / name; }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

// Section table of an iden3 container (trusted input: the good fixtures).
struct section_t {
  uint32_t id;
  size_t header;   // offset of the u32 id
  size_t payload;  // offset of the payload
  uint64_t size;
};
inline uint32_t get_u32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
inline void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
inline void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = uint8_t(v >> (8 * i));
}
inline std::vector<section_t> sections_of(const std::vector<uint8_t>& b) {
  std::vector<section_t> s;
  size_t at = 12;
  for (uint32_t i = 0; i < get_u32(b, 8); ++i) {
    section_t x{get_u32(b, at), at, at + 12, uint64_t(get_u32(b, at + 4)) | uint64_t(get_u32(b, at + 8)) << 32};
    s.push_back(x);
    at = x.payload + x.size;
  }
  return s;
}
inline section_t section_of(const std::vector<uint8_t>& b, uint32_t id) {
  for (const auto& s : sections_of(b)) {
    if (s.id == id) return s;
  }
  ADD_FAILURE() << "fixture has no section " << id;
  return {};
}

// (A·w) ∘ (B·w) = C·w, row by row; returns the first failing row or -1.
inline int64_t first_unsatisfied_row(const r1cs_t& r, const std::vector<fr_t>& w) {
  auto dot = [&](const sparse_matrix_t& m, uint64_t i) {
    fr_t s = fr_t::zero();
    for (uint64_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) s += m.value(k) * w[m.col[k]];
    return s;
  };
  for (uint64_t i = 0; i < r.n_constraints; ++i) {
    if (dot(r.a, i) * dot(r.b, i) != dot(r.c, i)) return int64_t(i);
  }
  return -1;
}

// Expects `f` to throw io_error whose what() names `file` and contains
// `problem` (case-sensitive substring).
inline void expect_io_error(const std::function<void()>& f, const fs::path& file, const std::string& problem) {
  try {
    f();
    ADD_FAILURE() << "no io_error for " << file << " (expected '" << problem << "')";
  } catch (const io_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(file.string() + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(problem), std::string::npos) << "expected '" << problem << "' in: " << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type for " << file << ": " << e.what();
  }
}

}  // namespace starzk::test
