// write_generated(): the files read back (through src/io's validating
// readers) as the generated circuit and witnesses.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "gen/write.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"

namespace starzk {
namespace {

TEST(GenWrite, FilesRoundTrip) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("starzk-gen-test-" + std::to_string(::getpid())) / "job";
  const gen_params_t params{10, 328, 21};
  std::vector<std::filesystem::path> seen;
  write_generated(params, dir, 2, 2, [&](const std::filesystem::path& p) { seen.push_back(p); });
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].filename(), "circuit.r1cs");
  EXPECT_EQ(seen[2].filename(), "witness-1.wtns");

  const r1cs_t cs = generate_circuit(params);
  EXPECT_TRUE(read_r1cs(dir / "circuit.r1cs") == cs);
  for (uint32_t i = 0; i < 2; ++i)
    EXPECT_EQ(read_wtns(dir / generated_witness_name(i), cs.n_vars), generate_witness(params, cs, i));
  EXPECT_FALSE(std::filesystem::exists(dir / "witness-2.wtns"));
  std::filesystem::remove_all(dir.parent_path());
}

TEST(GenWrite, UnwritableDirectoryIsAnError) {
  EXPECT_THROW(write_generated({10, 328, 0}, "/proc/starzk-no-such-dir/x", 1), std::runtime_error);
}

}  // namespace
}  // namespace starzk
