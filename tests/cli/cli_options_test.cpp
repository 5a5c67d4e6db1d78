// Options and messages through the real starzk binary:
//   - absurd numeric options (--threads 100000, --threads-per-task 0,
//     --cpus -1, --gpus -5, --mem-budget 0) and placements no worker can
//     run (--place spmv=cuda with --gpus 0, --gpus 64) are refused with the
//     option named and a non-zero exit, never a crash or a signal;
//   - batch errors go to stderr, not stdout;
//   - a manifest job's name reaches the terminal with its control
//     characters escaped;
//   - a corrupt key (a coefficient of the .zkey's matrices changed, its
//     points intact) is not reported as an unsatisfied witness alone.
#include <gtest/gtest.h>

#include <fstream>

#include "../test_support.hpp"
#include "cli_harness.hpp"
#include "groth16/prover.hpp"

namespace starzk::test {
namespace {

const fs::path multiplier = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";

struct split_result {
  int status;  // -1: killed by a signal
  std::string out, err;
};

class options : public binary_dir_test {
 protected:
  options() : binary_dir_test(STARZK_BIN, "starzk-options-") {}
  void SetUp() override {
    binary_dir_test::SetUp();
    if (IsSkipped()) return;
    for (const char* f : {"circuit.zkey", "circuit.r1cs", "witness.wtns"}) fs::copy_file(multiplier / f, dir_ / f);
    write_manifest("j", "\"witness.wtns\"");
  }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  void write_manifest(const std::string& name_toml, const std::string& witnesses) const {
    std::ofstream(dir_ / "jobs.toml") << "[[job]]\nname = \"" << name_toml
                                      << "\"\nkey = \"circuit.zkey\"\nwitnesses = [" << witnesses
                                      << "]\nout_dir = \"out\"\n";
  }
  // stdout and stderr apart (run_binary merges them): the command's own
  // redirections, and a '#' that comments out run_binary's 2>&1.
  split_result run_split(const std::string& args) const {
    const std::string o = at("stdout.txt"), e = at("stderr.txt");
    const run_result r = run_starzk(args + " >" + o + " 2>" + e + "; exit $? #");
    return {r.status, read_text(o), read_text(e)};
  }
  void expect_refused(const std::string& args, const std::string& option) const {
    const split_result r = run_split(args);
    EXPECT_GT(r.status, 0) << args << "\n" << r.err;  // non-zero, and not a signal (-1)
    EXPECT_NE(r.err.find(option), std::string::npos) << args << ": stderr does not name " << option << ":\n" << r.err;
  }
  std::string prove_args() const {
    return "prove --gpu off --zkey " + at("circuit.zkey") + " --wtns " + at("witness.wtns") + " --proof " +
           at("p.json");
  }
  std::string batch_args() const { return "prove --manifest " + at("jobs.toml") + " --quiet"; }
};

TEST_F(options, absurd_thread_counts_are_refused) {
  expect_refused(prove_args() + " --threads 100000", "--threads");
  expect_refused(prove_args() + " --threads -1", "--threads");
  expect_refused("setup --r1cs " + at("circuit.r1cs") + " --zkey " + at("k.zkey") + " --threads 100000", "--threads");
  expect_refused("cache --zkey " + at("circuit.zkey") + " --out " + at("k.szkc") + " --threads 100000", "--threads");
  expect_refused(batch_args() + " --gpus 0 --threads-per-task 0", "--threads-per-task");
  expect_refused(batch_args() + " --gpus 0 --threads-per-task 100000", "--threads-per-task");
  EXPECT_FALSE(fs::exists(dir_ / "p.json"));
}

TEST_F(options, worker_counts_and_budgets_are_checked) {
  expect_refused(batch_args() + " --cpus -1", "--cpus");
  expect_refused(batch_args() + " --cpus 100000", "--cpus");
  expect_refused(batch_args() + " --gpus -5", "--gpus");
  expect_refused(batch_args() + " --gpus 64", "--gpus");
  expect_refused(batch_args() + " --gpus 0 --mem-budget 0", "--mem-budget");
  expect_refused(batch_args() + " --gpus 0 --mem-budget 10K", "--mem-budget");
  expect_refused(batch_args() + " --gpus 0 --mem-budget lots", "--mem-budget");
  EXPECT_FALSE(fs::exists(dir_ / "out" / "proof-0.json"));
  // The limits accept what they should.
  const split_result ok = run_split(batch_args() + " --gpus 0 --cpus 1 --mem-budget 64M --threads-per-task 1");
  EXPECT_EQ(ok.status, 0) << ok.err;
  // bench takes the same worker options with the same checks.
  expect_refused("bench --cpus 100000", "--cpus");
  expect_refused("bench --gpus 65", "--gpus");
  const split_result help = run_split("bench --help");
  EXPECT_NE(help.out.find("--cpus"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--gpus"), std::string::npos) << help.out;
}

TEST_F(options, placement_without_its_workers_is_refused_not_aborted) {
  expect_refused(batch_args() + " --gpus 0 --place spmv=cuda", "--place spmv=cuda");
  expect_refused(batch_args() + " --gpus 0 --place msm=any,ntt_h=cuda", "--place ntt_h=cuda");
  expect_refused(batch_args() + " --cpus 0 --gpus 0 --place spmv=cpu", "");  // no worker at all: refused cleanly
}

TEST_F(options, batch_errors_go_to_stderr) {
  // A witness of another circuit: the partition fails.
  fs::copy_file(fs::path(STARZK_TEST_DATA) / "fixtures" / "mimc" / "witness.wtns", dir_ / "other.wtns");
  write_manifest("j", "\"witness.wtns\", \"other.wtns\"");
  const split_result r = run_split(batch_args() + " --gpus 0");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("partition 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("FAILED"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("partition 1"), std::string::npos) << "an error on stdout:\n" << r.out;
}

TEST_F(options, manifest_names_are_printed_escaped) {
  // TOML escapes put ESC [ 2 J (clear screen) and a bell in the name; the
  // job fails (a missing witness), and its message names it.
  write_manifest("\\u001b[2Jevil\\u0007", "\"missing.wtns\"");
  const split_result r = run_split(batch_args() + " --gpus 0");
  EXPECT_GT(r.status, 0);
  const std::string all = r.out + r.err;
  EXPECT_EQ(all.find('\x1b'), std::string::npos) << "a raw escape reached the terminal";
  EXPECT_EQ(all.find('\x07'), std::string::npos);
  EXPECT_NE(r.err.find("\\x1b[2Jevil\\x07"), std::string::npos) << r.err;
}

TEST_F(options, a_corrupt_key_is_not_blamed_on_the_witness) {
  // Section 4 (the QAP coefficients): entries of 44 bytes after a u32
  // count, each u32 matrix, u32 row, u32 wire, 32-byte value. The value of
  // the first entry on wire 0 (w[0] = 1, so A·w changes) is altered.
  std::vector<uint8_t> b = read_all(dir_ / "circuit.zkey");
  const section_span s = find_section(b, 4);
  bool edited = false;
  for (size_t e = s.offset + 4; e + 44 <= s.offset + s.length && !edited; e += 44) {
    if (b[e + 8] | b[e + 9] | b[e + 10] | b[e + 11]) continue;  // wire != 0
    b[e + 12] ^= 0x01;
    edited = true;
  }
  ASSERT_TRUE(edited);
  write_all(dir_ / "circuit.zkey", b);
  const split_result without = run_split(prove_args());
  EXPECT_EQ(without.status, 1);
  EXPECT_NE(without.err.find(proof_fails_without_circuit), std::string::npos) << without.err;
  const split_result with = run_split(prove_args() + " --circuit " + at("circuit.r1cs"));
  EXPECT_EQ(with.status, 1);
  EXPECT_NE(with.err.find(proof_fails_with_circuit), std::string::npos) << with.err;
  EXPECT_FALSE(fs::exists(dir_ / "p.json"));
}

}  // namespace
}  // namespace starzk::test
