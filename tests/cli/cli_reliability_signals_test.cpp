// Batches stopped by a signal, through the real starzk binary:
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
#include <string>
#include <thread>
#include <vector>

#include "../test_support.hpp"
#include "cli_reliability_fixture.hpp"

#include <nlohmann/json.hpp>

namespace starzk::test {
namespace {

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
  while (read_text(log).find(text) == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

nlohmann::json read_marker(const fs::path& p) { return nlohmann::json::parse(read_text(p), nullptr, false); }

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
  const std::string out = read_text(log);
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
  const std::string out = read_text(log);
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
  ASSERT_TRUE(mk.is_object()) << read_text(partial);
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
  ASSERT_TRUE(done.is_object()) << read_text(complete);
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
