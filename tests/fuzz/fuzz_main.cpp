// The libFuzzer entry point of one harness: the target named by the
// compile definition STARZK_FUZZ_TARGET (tests/fuzz/CMakeLists.txt builds
// fuzz_<name> for each target of fuzz_input.hpp), looked up once.
#include <cstdio>
#include <cstdlib>

#include "fuzz_input.hpp"

namespace starzk::fuzz {

const target_t* find_target(std::string_view name) {
  for (auto family : {reader_targets(), mapped_targets()})
    for (const target_t& t : family)
      if (name == t.name) return &t;
  return nullptr;
}

}  // namespace starzk::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const starzk::fuzz::target_t* target = [] {
    const auto* t = starzk::fuzz::find_target(STARZK_FUZZ_TARGET);
    if (!t) {
      std::fprintf(stderr, "no fuzz target named %s\n", STARZK_FUZZ_TARGET);
      std::abort();
    }
    return t;
  }();
  target->run({data, size});
  return 0;
}
