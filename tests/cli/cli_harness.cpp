// See cli_harness.hpp.
#include "cli_harness.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace starzk::test {

run_result run_starzk(const std::string& args) { return run_binary(STARZK_BIN, args); }

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + p.string());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_all(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

section_span find_section(const std::vector<uint8_t>& file, uint32_t id) {
  auto u32 = [&](size_t o) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | file.at(o + i);
    return v;
  };
  auto u64 = [&](size_t o) { return uint64_t(u32(o)) | (uint64_t(u32(o + 4)) << 32); };
  const uint32_t n = u32(8);
  size_t off = 12;
  for (uint32_t s = 0; s < n; ++s) {
    const uint32_t sid = u32(off);
    const uint64_t len = u64(off + 4);
    if (sid == id) return section_span{off + 12, size_t(len)};
    off += 12 + len;
  }
  throw std::runtime_error("section " + std::to_string(id) + " not found");
}

std::vector<std::string> list_dir(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

size_t validation_records(const fs::path& dir) {
  size_t n = 0;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir)) n += e.path().extension() == ".rec";
  return n;
}

}  // namespace starzk::test
