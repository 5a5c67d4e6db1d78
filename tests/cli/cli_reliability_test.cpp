// Nothing lost, nothing half-written, through the real starzk binary:
//   - an output that is an input (the key, the witness, the manifest, by
//     name, symlink or hard link) is refused before any work, inputs intact;
//   - `prove` writes its outputs as one set; a failed run leaves none, not
//     even the previous run's; dead processes' temporaries are cleaned;
//   - `cache --check` validates a cache in full; `cache --csr-out` writes
//     nothing when the key does not validate;
//   - a batch killed (SIGKILL) at random moments and rerun ends with every
//     proof exactly once, each verifying, the journal naming each partition
//     once; a rerun after success proves nothing; a changed witness is
//     proved again;
//   - a device fault (injected: --test-inject-fault) runs the partition again
//     on the CPUs: every proof written and verifying, the summary counting
//     the retry, a line naming the first error.
// Batches stopped by SIGTERM and SIGUSR1, and their markers:
// cli_reliability_signals_test.cpp.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <random>
#include <thread>

#include "../io/mapped_test_util.hpp"
#include "cli_harness.hpp"
#include "cli_reliability_fixture.hpp"
#include "groth16/verifier.hpp"
#include "io/batch_journal.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "io/vkey_json.hpp"
#include "io/zkey.hpp"

#include <nlohmann/json.hpp>

namespace starzk::test {
namespace {

// ---- outputs never alias inputs -----------------------------------------------

TEST_F(reliability, prove_refuses_outputs_that_are_inputs) {
  const auto key = read_all(dir_ / "circuit.zkey");
  fs::create_symlink(dir_ / "witness.wtns", dir_ / "w-link");
  fs::create_hard_link(dir_ / "circuit.zkey", dir_ / "k-hard");
  for (const std::string& out :
       {"--proof " + at("circuit.zkey"), "--public " + at("w-link") + " --proof " + at("p.json"),
        "--out " + at("k-hard"), "--proof " + at("p.json") + " --out " + at("p.json")}) {
    const run_result r = prove(out);
    EXPECT_NE(r.status, 0) << out;
    EXPECT_NE(r.output.find("is the same file as"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("verified"), std::string::npos) << r.output;  // refused before proving
  }
  EXPECT_EQ(read_all(dir_ / "circuit.zkey"), key);
  EXPECT_EQ(read_all(dir_ / "witness.wtns"), read_all(multiplier / "witness.wtns"));
}

TEST_F(reliability, manifest_refuses_outputs_that_are_inputs) {
  const auto key = read_all(dir_ / "circuit.zkey");
  for (const std::string out : {"proofs_bin = \"circuit.zkey\"", "proofs_bin = \"./witness.wtns\"",
                                "proofs_bin = \"jobs.toml\"", "proofs_bin = \"circuit.r1cs\""}) {
    const fs::path m = manifest(2, out + "\n");
    const auto text = read_all(m);
    const run_result r = batch(m);
    EXPECT_NE(r.status, 0) << out;
    EXPECT_NE(r.output.find("an output may not overwrite an input"), std::string::npos) << r.output;
    EXPECT_EQ(read_all(m), text);
  }
  EXPECT_EQ(read_all(dir_ / "circuit.zkey"), key);
  EXPECT_EQ(read_all(dir_ / "circuit.r1cs"), read_all(multiplier / "circuit.r1cs"));
}

// ---- single prove: one set, leftovers cleaned -----------------------------------

TEST_F(reliability, prove_writes_a_set_and_a_failure_leaves_none) {
  // A temporary of a dead process, as a kill -9 leaves it.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  const fs::path stale = dir_ / ("proof.json.tmp." + std::to_string(child) + ".0");
  write_all(stale, to_bytes("partial"));
  const std::string outs = "--proof " + at("proof.json") + " --public " + at("public.json") + " --out " + at("p.bin");
  run_result r = prove(outs);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(stale));
  const verifying_key_t vk = read_vkey_json(multiplier / "verification_key.json");
  const proof_t proof = read_proof_json(dir_ / "proof.json");
  EXPECT_TRUE(verify(vk, read_public_json(dir_ / "public.json"), proof));
  EXPECT_EQ(read_proofs_bin(dir_ / "p.bin", 1).at(0), proof);
  // A run that fails (a witness that is not one) takes the old set away:
  // nothing is left that looks like its result.
  write_all(dir_ / "witness.wtns", to_bytes("not a witness"));
  r = prove(outs);
  EXPECT_NE(r.status, 0);
  for (const char* f : {"proof.json", "public.json", "p.bin"}) EXPECT_FALSE(fs::exists(dir_ / f)) << f;
  for (const std::string& f : list_dir(dir_)) EXPECT_EQ(f.find(".tmp."), std::string::npos) << f;
}

// ---- caches ------------------------------------------------------------------------

TEST_F(reliability, cache_check_and_csr_out) {
  run_result r = run_starzk("cache --zkey " + at("circuit.zkey") + " --circuit " + at("circuit.r1cs") + " --out " +
                            at("k.szkc") + " --csr-out " + at("c.szcs"));
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* f : {"k.szkc", "c.szcs"}) {
    r = run_starzk("cache --check " + at(f));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(at(f) + ": valid"), std::string::npos) << r.output;
  }
  // A column index out of range, every checksum recomputed: only the full
  // check finds it.
  auto b = read_all(dir_ / "k.szkc");
  put_u32(b, section_offset(b, 7), 0xFFFFFFFFu);  // zkey_a col, entry 0
  reseal(b, 7);
  write_all(dir_ / "bad.szkc", b);
  r = run_starzk("cache --check " + at("bad.szkc"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(at("bad.szkc") + ": "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("zkey_a"), std::string::npos) << r.output;
  r = run_starzk("cache --check " + at("circuit.zkey"));
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("not a key cache"), std::string::npos) << r.output;
  // --csr-out with a key that does not validate: neither file is written.
  auto k = read_all(dir_ / "circuit.zkey");
  k[k.size() / 2] ^= 0x55;  // a point of the key
  write_all(dir_ / "broken.zkey", k);
  r = run_starzk("cache --zkey " + at("broken.zkey") + " --circuit " + at("circuit.r1cs") + " --out " + at("n.szkc") +
                 " --csr-out " + at("n.szcs"));
  EXPECT_NE(r.status, 0);
  EXPECT_FALSE(fs::exists(dir_ / "n.szcs"));
  EXPECT_FALSE(fs::exists(dir_ / "n.szkc"));
}

// ---- batches: kill -9 at random moments, rerun, every proof once ---------------

// Starts the batch and kills it with SIGKILL after `delay`.
void run_and_kill(const fs::path& m, std::chrono::microseconds delay) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("STARPU_SILENT", "1", 1);
    ::setenv("STARZK_VALIDATED_KEYS", "off", 1);
    if (::freopen("/dev/null", "w", stdout) == nullptr || ::freopen("/dev/null", "w", stderr) == nullptr) ::_exit(127);
    ::execl(STARZK_BIN, STARZK_BIN, "prove", "--manifest", m.c_str(), "--gpus", "0", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(delay);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

TEST_F(reliability, killed_batches_resume_and_prove_each_partition_once) {
  const size_t n = 12;
  const fs::path m = manifest(n, "out_dir = \"out\"\nproofs_bin = \"proofs.bin\"\n");
  // How long one uninterrupted run takes bounds the random kill moments.
  const auto t0 = std::chrono::steady_clock::now();
  run_result r = batch(m);
  ASSERT_EQ(r.status, 0) << r.output;
  const auto full = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  expect_complete(dir_, n);
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // A fresh start, killed at a random moment, then killed again while it
    // resumes; the last run completes whatever is missing.
    run_and_kill(m, std::chrono::microseconds(0));
    ASSERT_EQ(batch(m, "--fresh --quiet").status, 0);
    std::uniform_int_distribution<long> at(0, long(full.count()));
    run_and_kill(m, std::chrono::microseconds(at(rng)));
    run_and_kill(m, std::chrono::microseconds(at(rng)));
    r = batch(m);
    ASSERT_EQ(r.status, 0) << r.output;
    expect_complete(dir_, n);
  }
  // After success a rerun proves nothing and rewrites nothing.
  const auto before = fs::last_write_time(dir_ / "out" / "proof-0.json");
  r = batch(m);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(
      r.output.find(std::to_string(n) + " of " + std::to_string(n) + " partitions were finished by an earlier run"),
      std::string::npos)
      << r.output;
  EXPECT_EQ(fs::last_write_time(dir_ / "out" / "proof-0.json"), before);
  // A changed input makes its entries stale: every partition is proved again.
  fs::last_write_time(dir_ / "witness.wtns", fs::file_time_type::clock::now());
  r = batch(m);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(r.output.find("finished by an earlier run"), std::string::npos) << r.output;
  expect_complete(dir_, n);
}

TEST_F(reliability, an_unusable_out_dir_is_refused_before_any_proving) {
  write_all(dir_ / "a_file", {'x'});
  const fs::path m = manifest(3, "out_dir = \"a_file/out\"\n");
  const run_result r = batch(m);
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_NE(r.output.find("a_file/out: cannot make the output folder"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("progress"), std::string::npos) << r.output;   // nothing was proved
  EXPECT_EQ(r.output.find("validated"), std::string::npos) << r.output;  // the key was not even read
}

TEST_F(reliability, a_device_fault_is_retried_on_the_cpus_and_counted) {
  const size_t n = 4;
  const fs::path m = manifest(n, "out_dir = \"out\"\nproofs_bin = \"proofs.bin\"\n");
  const run_result r = batch(m, "--test-inject-fault msm_l:2 --json");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_complete(dir_, n);
  EXPECT_NE(r.output.find("partition 2 (witness.wtns): run again on the CPUs after a device fault"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("msm_l: injected fault (test)"), std::string::npos) << r.output;
  const size_t brace = r.output.rfind("{\"command\"");
  ASSERT_NE(brace, std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(brace, r.output.find('\n', brace) - brace), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.output;
  EXPECT_EQ(j["retried"], 1);
  EXPECT_EQ(j["failed"], 0);
  EXPECT_EQ(j["ok"], true);
}

}  // namespace
}  // namespace starzk::test
