// write_generated(): the files read back (through src/io's validating
// readers) as the generated circuit and witnesses; write_generated_job with
// key_cache: the key is DIR/key.szkc, a key cache of the circuit in the
// asked convention, and no other key file is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "gen/write.hpp"
#include "io/key_cache.hpp"
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

TEST(GenWrite, KeyAsAKeyCache) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("starzk-gen-cache-" + std::to_string(::getpid())) / "job";
  const gen_params_t params{10, 328, 5};
  gen_job_options_t o;
  o.partitions = o.distinct = 2;
  o.key_cache = true;
  o.convention = root_convention_t::bellman;
  o.setup.device = setup_device_t::cpu;
  o.threads = 2;
  const gen_job_files_t files = write_generated_job(params, dir, o);
  EXPECT_EQ(files.key, dir / "key.szkc");
  EXPECT_EQ(files.circuit, dir / "circuit.r1cs");
  ASSERT_EQ(files.witnesses.size(), 2u);
  const r1cs_t cs = read_r1cs(files.circuit);
  const proving_key_t pk = read_key_cache(files.key, cache_check_t::on_curve, 2);
  EXPECT_EQ(pk.n_vars, cs.n_vars);
  EXPECT_EQ(pk.convention, root_convention_t::bellman);
  for (const char* other : {"key.params", "key.zkey", "key.szpk"}) EXPECT_FALSE(std::filesystem::exists(dir / other));
  std::filesystem::remove_all(dir.parent_path());
}

TEST(GenWrite, UnwritableDirectoryIsAnError) {
  EXPECT_THROW(write_generated({10, 328, 0}, "/proc/starzk-no-such-dir/x", 1), std::runtime_error);
}

}  // namespace
}  // namespace starzk
