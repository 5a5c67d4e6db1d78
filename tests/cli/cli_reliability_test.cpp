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
//     the retry, a line naming the first error;
//   - SIGTERM (Slurm's time limit) in the middle of a batch writes the trace
//     recorded so far and a line saying what was running, then ends the
//     process by that signal; the rerun resumes;
//   - SIGUSR1 (what slurm/ forwards before the time limit) stops submission:
//     the partitions in flight are written and journalled, the exit status is
//     5, and jobs.toml.partial names each missing partition and output; the
//     rerun completes and writes jobs.toml.complete naming every output. A
//     failed partition leaves a partial marker giving the failure; a run
//     killed while it wrote a marker leaves no temporary once rerun.
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
#include "groth16/verifier.hpp"
#include "io/batch_journal.hpp"
#include "io/proof_files.hpp"
#include "io/proof_json.hpp"
#include "io/vkey_json.hpp"
#include "io/zkey.hpp"

#include <nlohmann/json.hpp>

namespace starzk::test {
namespace {

const fs::path multiplier = fs::path(STARZK_TEST_DATA) / "fixtures" / "multiplier";

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

// Every partition's proof once, verifying; the .bin holds the same proofs.
void expect_complete(const fs::path& dir, size_t n) {
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

// ---- batches stopped by a signal ------------------------------------------------

std::string text_of(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Starts `prove --manifest m --gpus 0 extra...` with stdout and stderr in
// `log`; returns its pid.
pid_t start_batch(const fs::path& m, const fs::path& log, std::vector<std::string> extra = {}) {
  std::vector<std::string> words = {STARZK_BIN, "prove", "--manifest", m.string(), "--gpus", "0"};
  words.insert(words.end(), extra.begin(), extra.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("STARPU_SILENT", "1", 1);
    ::setenv("STARZK_VALIDATED_KEYS", "off", 1);
    if (::freopen(log.c_str(), "w", stdout) == nullptr || ::dup2(::fileno(stdout), 2) < 0) ::_exit(127);
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    ::execv(STARZK_BIN, argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits (at most 60 s) until `log` holds `text`.
void wait_for(const fs::path& log, const std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (text_of(log).find(text) == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

nlohmann::json read_marker(const fs::path& p) { return nlohmann::json::parse(text_of(p), nullptr, false); }

TEST_F(reliability, sigterm_writes_the_trace_and_ends_by_the_signal) {
  const size_t n = 600;  // long enough to be caught in the middle
  const fs::path m = manifest(n, "out_dir = \"out\"\nproofs_bin = \"proofs.bin\"\n");
  const fs::path log = dir_ / "log.txt", trace = dir_ / "trace.json";
  const pid_t pid = start_batch(m, log, {"--trace", trace.string()});
  ASSERT_GT(pid, 0);
  // Wait for the first finished partition, then stop the run.
  wait_for(log, "progress: partitions");
  ::kill(pid, SIGTERM);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  const std::string out = text_of(log);
  ASSERT_TRUE(WIFSIGNALED(st)) << "the batch ended before the signal or exited: " << out.substr(out.size() - 400);
  EXPECT_EQ(WTERMSIG(st), SIGTERM);
  EXPECT_NE(out.find("starzk: SIGTERM after"), std::string::npos) << out;
  EXPECT_NE(out.find("host RSS"), std::string::npos) << out;
  EXPECT_NE(out.find("spmv cpu"), std::string::npos) << out;  // what the bodies were doing
  std::ifstream in(trace);
  ASSERT_TRUE(in.good()) << "no trace after SIGTERM";
  const auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "the trace is not JSON";
  EXPECT_GT(j["traceEvents"].size(), 0u);  // the tasks up to the signal
  // The rerun finishes the rest.
  const run_result r = batch(m, "--quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_complete(dir_, n);
}

TEST_F(reliability, sigusr1_finishes_the_partitions_in_flight_and_marks_what_is_missing) {
  const size_t n = 300;
  const fs::path m = manifest(n, "out_dir = \"out\"\nproofs_bin = \"proofs.bin\"\n");
  const fs::path log = dir_ / "log.txt", partial = dir_ / "jobs.toml.partial", complete = dir_ / "jobs.toml.complete";
  write_all(complete, to_bytes("{}"));  // an earlier run's marker: removed before any proving
  // The smallest budget keeps most partitions waiting for submission (about
  // 70 of these tiny ones in flight), as a sector's memory does.
  const pid_t pid = start_batch(m, log, {"--mem-budget", "1M"});
  ASSERT_GT(pid, 0);
  wait_for(log, "progress: partitions");
  ::kill(pid, SIGUSR1);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  const std::string out = text_of(log);
  ASSERT_TRUE(WIFEXITED(st)) << out.substr(out.size() > 600 ? out.size() - 600 : 0);
  EXPECT_EQ(WEXITSTATUS(st), 5) << out.substr(out.size() > 600 ? out.size() - 600 : 0);
  EXPECT_NE(out.find("starzk: SIGUSR1 after"), std::string::npos) << out;
  EXPECT_NE(out.find("stopped by SIGUSR1"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(complete));
  // Every partition that finished is on disk and journalled; nothing else.
  const size_t proved = read_journal(dir_ / "out" / ".starzk-journal", n).entries.size();
  EXPECT_GT(proved, 0u);
  EXPECT_LT(proved, n);
  EXPECT_EQ(list_dir(dir_ / "out").size(), 2 * proved + 1);
  const nlohmann::json mk = read_marker(partial);
  ASSERT_TRUE(mk.is_object()) << text_of(partial);
  EXPECT_EQ(mk["complete"], false);
  EXPECT_EQ(mk["stopped"], "SIGUSR1");
  EXPECT_EQ(mk["proved"], proved);
  EXPECT_EQ(mk["outputs"].size(), 2 * proved);
  for (const auto& f : mk["outputs"]) EXPECT_TRUE(fs::exists(f.get<std::string>())) << f;
  ASSERT_EQ(mk["missing"].size(), n - proved);
  EXPECT_EQ(mk["missing"][0]["job"], "j");
  EXPECT_EQ(mk["missing"][0]["reason"], "not proved");
  EXPECT_EQ(mk["missing_outputs"], nlohmann::json::array({(dir_ / "proofs.bin").string()}));
  // The rerun proves the rest and names every output.
  const run_result r = batch(m, "--quiet");
  ASSERT_EQ(r.status, 0) << r.output;
  expect_complete(dir_, n);
  EXPECT_FALSE(fs::exists(partial));
  const nlohmann::json done = read_marker(complete);
  ASSERT_TRUE(done.is_object()) << text_of(complete);
  EXPECT_EQ(done["complete"], true);
  EXPECT_EQ(done["outputs"].size(), 2 * n + 1);
  EXPECT_EQ(done["outputs"].back(), (dir_ / "proofs.bin").string());
}

TEST_F(reliability, a_failed_partition_leaves_a_partial_marker_naming_it) {
  fs::copy_file(fs::path(STARZK_TEST_DATA) / "fixtures" / "mimc" / "witness.wtns", dir_ / "other.wtns");
  const fs::path m = dir_ / "jobs.toml";
  write_all(m, to_bytes("[[job]]\nname = \"j\"\nkey = \"circuit.zkey\"\nwitnesses = [\"witness.wtns\", "
                        "\"other.wtns\"]\nout_dir = \"out\"\n"));
  const run_result r = batch(m);
  EXPECT_EQ(r.status, 1) << r.output;
  const nlohmann::json mk = read_marker(dir_ / "jobs.toml.partial");
  ASSERT_TRUE(mk.is_object()) << r.output;
  EXPECT_EQ(mk["complete"], false);
  EXPECT_EQ(mk["stopped"], nullptr);
  EXPECT_EQ(mk["proved"], 1);
  ASSERT_EQ(mk["missing"].size(), 1u);
  EXPECT_EQ(mk["missing"][0]["partition"], 1);
  EXPECT_EQ(mk["missing"][0]["reason"].get<std::string>().rfind("failed: ", 0), 0u) << mk.dump();
  EXPECT_FALSE(fs::exists(dir_ / "jobs.toml.complete"));
}

// A run killed while it wrote its marker leaves the marker's temporary; the
// next run removes it with the markers (the temporary of a live process,
// another writer at work, stays).
TEST_F(reliability, a_killed_marker_write_leaves_no_temporary_behind) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);  // a pid no process has now
  const fs::path dead = dir_ / ("jobs.toml.complete.tmp." + std::to_string(child) + ".1");
  const fs::path live = dir_ / ("jobs.toml.partial.tmp." + std::to_string(::getpid()) + ".1");
  write_all(dead, to_bytes("{\"manifest\""));
  write_all(live, to_bytes("{"));
  const fs::path m = manifest(2, "out_dir = \"out\"\n");
  const run_result r = batch(m);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(read_marker(dir_ / "jobs.toml.complete").is_object());
}

}  // namespace
}  // namespace starzk::test
