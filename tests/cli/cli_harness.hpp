// Running the starzk binary from tests: a scratch folder per test, byte-level
// file surgery on iden3 containers (find a section, overwrite bytes), and a
// runner that captures the exit status and stderr.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "../run_binary.hpp"

namespace starzk::test {

namespace fs = std::filesystem;

run_result run_starzk(const std::string& args);

std::vector<uint8_t> read_all(const fs::path& p);
void write_all(const fs::path& p, const std::vector<uint8_t>& bytes);

// Offset of section `id`'s payload in an iden3 container and its length;
// throws if absent.
struct section_span {
  size_t offset, length;
};
section_span find_section(const std::vector<uint8_t>& file, uint32_t id);

// The files in a folder, by name (to check nothing was left behind).
std::vector<std::string> list_dir(const fs::path& dir);
// Validation records (*.rec) in a records folder (0 when it does not exist);
// digest memos live in a folder beside them and do not count.
size_t validation_records(const fs::path& dir);

}  // namespace starzk::test
