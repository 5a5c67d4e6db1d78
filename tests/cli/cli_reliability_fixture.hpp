// cli_reliability_fixture.hpp: the fixture of the reliability tests
// through the real binary (cli_reliability_test.cpp and
// cli_reliability_signals_test.cpp): a folder holding the multiplier
// fixture's key, circuit and witness, single proves and manifests of n
// partitions of it, and the check that a batch ended complete.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../io/mapped_test_util.hpp"
#include "cli_harness.hpp"
#include "groth16/verifier.hpp"
#include "io/batch_journal.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "io/vkey_json.hpp"

namespace starzk::test {

inline const fs::path multiplier = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";

class reliability : public binary_dir_test {
 protected:
  reliability() : binary_dir_test(STARZK_BIN, "starzk-reliability-") {}
  void SetUp() override {
    binary_dir_test::SetUp();
    for (const char* f : {"circuit.zkey", "circuit.r1cs", "witness.wtns"}) fs::copy_file(multiplier / f, dir_ / f);
  }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  run_result prove(const std::string& outputs) const {
    return run_starzk("prove --gpu off --zkey " + at("circuit.zkey") + " --wtns " + at("witness.wtns") + " " + outputs);
  }
  // A manifest of one job, n partitions of the fixture's witness.
  fs::path manifest(size_t n, const std::string& extra) const {
    std::string w;
    for (size_t i = 0; i < n; ++i) w += std::string(i ? ", " : "") + "\"witness.wtns\"";
    const fs::path m = dir_ / "jobs.toml";
    write_all(m, to_bytes("[[job]]\nname = \"j\"\nkey = \"circuit.zkey\"\ncircuit = \"circuit.r1cs\"\nwitnesses = [" +
                          w + "]\n" + extra));
    return m;
  }
  static std::vector<uint8_t> to_bytes(const std::string& s) { return {s.begin(), s.end()}; }
  run_result batch(const fs::path& m, const std::string& extra = "") const {
    return run_starzk("prove --manifest " + m.string() + " --gpus 0 " + extra);
  }
};

// Every partition's proof once, verifying; the .bin holds the same proofs.
inline void expect_complete(const fs::path& dir, size_t n) {
  const verifying_key_t vk = read_vkey_json(multiplier / "verification_key.json");
  const std::vector<proof_t> bin = read_proofs_bin(dir / "proofs.bin", n);
  for (size_t i = 0; i < n; ++i) {
    const fs::path p = dir / "out" / ("proof-" + std::to_string(i) + ".json");
    const proof_t proof = read_proof_json(p);
    EXPECT_TRUE(verify(vk, read_public_json(dir / "out" / ("public-" + std::to_string(i) + ".json")), proof)) << p;
    EXPECT_EQ(bin[i], proof) << i;
  }
  EXPECT_EQ(list_dir(dir / "out").size(), 2 * n + 1);  // the pairs and the journal, nothing else
  const journal_read_t j = read_journal(dir / "out" / ".starzk-journal", n);
  EXPECT_EQ(j.entries.size(), n);
  EXPECT_EQ(j.skipped, 0u);
  for (const auto& f : fs::recursive_directory_iterator(dir))
    EXPECT_EQ(f.path().filename().string().find(".tmp."), std::string::npos) << f.path();
}

}  // namespace starzk::test
