// The job runner (dag/job_runner.hpp) on CPU workers, with a sink that
// records what it is told: a key is loaded once per key id however many
// jobs name it, a job with nothing to prove loads none, a key that cannot
// be loaded fails its job alone, every submitted partition comes back
// exactly once and byte-identical to the reference prover's proof for the
// same r, s; with max_open_jobs = 1 no job opens before the previous one's
// partitions are all back; a stop ends submission and what was submitted
// still comes back; a witness that cannot be written fails its partition
// with its label named once; an "auto" budget is cut once a key is
// resident, never raised; every part's read-ahead hint runs once, before
// its witness is written, and the read-ahead queue runs hints in order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "dag/job_runner.hpp"
#include "dag/read_ahead.hpp"
#include "dag_test_util.hpp"
#include "groth16/proof_bytes.hpp"

namespace starzk {
namespace {

const char* const k_cases[] = {"gen-bellman", "gen-snarkjs"};

// The job's key id names its case ("gen-bellman", ...; "bad": none).
dag::job_spec_t job(const std::string& id, std::vector<uint32_t> parts) {
  dag::job_spec_t j{.key_id = id, .name = id};
  for (const uint32_t i : parts) {
    dag::witness_fill_t fill = [id, i](std::span<fr_t> out) {
      const std::vector<fr_t>& w = test::prove_case(id).witnesses.at(i);
      std::copy(w.begin(), w.end(), out.begin());
    };
    j.parts.push_back({i, id + " #" + std::to_string(i), fill});
  }
  return j;
}

struct recording_sink_t final : dag::job_sink_t {
  std::vector<std::string> events;  // "skipped 1", "key_failed 2", "opened 0", ...
  std::map<size_t, std::vector<dag::partition_result_t>> results;
  std::map<size_t, size_t> outstanding;  // job -> submitted, not back
  size_t submissions = 0, stop_after = 0, most_outstanding_at_open = 0;
  bool shrunk = false;

  bool stop() override { return stop_after && submissions >= stop_after; }
  void skipped(size_t j) override { events.push_back("skipped " + std::to_string(j)); }
  void key_failed(size_t j, const std::string& why) override {
    events.push_back("key_failed " + std::to_string(j) + ": " + why);
  }
  void key_ready(size_t, const dag::key_bundle_t&, const dag::batch_t&, bool s) override { shrunk = shrunk || s; }
  void opened(size_t j) override {
    size_t n = 0;
    for (const auto& [job, k] : outstanding) n += k;
    most_outstanding_at_open = std::max(most_outstanding_at_open, n);
    events.push_back("opened " + std::to_string(j));
  }
  void submitted(size_t j, uint32_t) override {
    ++submissions;
    ++outstanding[j];
  }
  void finished(size_t j, dag::partition_result_t r) override {
    if (r.ok) --outstanding[j];
    results[j].push_back(std::move(r));
  }
};

dag::job_runner_options_t options(unsigned loaders, uint64_t mem_budget = 0) {
  dag::job_runner_options_t o;
  o.batch.loaders = loaders;
  o.batch.mem_budget = mem_budget;
  return o;
}

proof_t reference(const std::string& id, uint32_t i, uint64_t seed) {
  const test::prove_case_t& c = test::prove_case(id);
  return prove_with_blinding(*c.pk, c.cs.get(), c.witnesses.at(i), test::test_blinding(seed), 2);
}

class job_runner : public ::testing::Test {
 protected:
  job_runner() : session_(test::cpu_session("eager", 2)) {}

  // Loads the case the job's key id names, counting the loads.
  dag::key_loader_t loader(const std::vector<dag::job_spec_t>& jobs) {
    std::vector<std::string> ids;
    for (const dag::job_spec_t& j : jobs) ids.push_back(j.key_id);
    return [this, ids](size_t j) -> std::shared_ptr<const dag::key_bundle_t> {
      ++loads_[ids.at(j)];
      if (ids[j] == "bad") throw std::runtime_error("the key is corrupt");
      return test::bundle(test::prove_case(ids[j]));
    };
  }

  runtime::starpu_session session_;
  std::map<std::string, int> loads_;
};

TEST_F(job_runner, keys_shared_skipped_and_failed_jobs_and_every_proof_back_once) {
  const uint64_t seed = 42;
  std::vector<dag::job_spec_t> jobs = {job(k_cases[0], {0, 1}), job(k_cases[1], {}), job("bad", {0}),
                                       job(k_cases[0], {2, 3}), job(k_cases[1], {1})};
  recording_sink_t sink;
  {
    dag::job_runner_options_t o = options(2);
    o.fixed_rs = test::test_blinding(seed);
    dag::job_runner_t runner(jobs, loader(jobs), o);
    runner.run(sink);
  }
  EXPECT_EQ(loads_, (std::map<std::string, int>{{"bad", 1}, {k_cases[0], 1}, {k_cases[1], 1}}));
  EXPECT_EQ(sink.events, (std::vector<std::string>{"opened 0", "skipped 1", "key_failed 2: the key is corrupt",
                                                   "opened 3", "opened 4"}));
  for (const size_t j : {size_t(0), size_t(3), size_t(4)}) {
    ASSERT_EQ(sink.results[j].size(), jobs[j].parts.size()) << j;
    std::set<uint32_t> seen;
    for (const dag::partition_result_t& r : sink.results[j]) {
      ASSERT_TRUE(r.ok) << r.error;
      EXPECT_TRUE(seen.insert(r.index).second) << r.label;
      EXPECT_EQ(encode_proof(r.proof), encode_proof(reference(jobs[j].key_id, r.index, seed))) << r.label;
    }
  }
  EXPECT_EQ(sink.results.count(2), 0u);
}

TEST_F(job_runner, max_open_jobs_and_stop) {
  std::vector<dag::job_spec_t> jobs = {job(k_cases[0], {0, 1}), job(k_cases[0], {2}), job(k_cases[0], {3, 0}),
                                       job(k_cases[0], {1})};
  recording_sink_t sink;
  sink.stop_after = 4;  // the second partition of job 2 is never submitted, nor job 3
  {
    dag::job_runner_options_t o = options(2);
    o.max_open_jobs = 1;
    dag::job_runner_t runner(jobs, loader(jobs), o);
    runner.run(sink);
  }
  EXPECT_EQ(sink.most_outstanding_at_open, 0u);  // each job opened once the one before was back
  EXPECT_EQ(sink.events, (std::vector<std::string>{"opened 0", "opened 1", "opened 2"}));
  EXPECT_EQ(sink.submissions, 4u);
  EXPECT_EQ(sink.results[0].size(), 2u);
  EXPECT_EQ(sink.results[1].size(), 1u);
  EXPECT_EQ(sink.results[2].size(), 1u);
  EXPECT_EQ(loads_[k_cases[0]], 1);
}

TEST_F(job_runner, a_witness_that_cannot_be_written_fails_its_partition_alone) {
  std::vector<dag::job_spec_t> jobs = {job(k_cases[1], {0, 1})};
  jobs[0].parts[0].fill = [](std::span<fr_t>) { throw std::runtime_error("w.wtns: truncated"); };
  for (const unsigned loaders : {0u, 2u}) {  // thrown by submit(), or come back from a loader thread
    recording_sink_t sink;
    {
      dag::job_runner_t runner(jobs, loader(jobs), options(loaders));
      runner.run(sink);
    }
    ASSERT_EQ(sink.results[0].size(), 2u) << loaders;
    for (const dag::partition_result_t& r : sink.results[0]) {
      if (r.index == 1) {
        EXPECT_TRUE(r.ok) << r.error;
        continue;
      }
      EXPECT_FALSE(r.ok);
      EXPECT_NE(r.error.find("w.wtns: truncated"), std::string::npos) << r.error;
      const std::string label = "gen-snarkjs #0";
      EXPECT_EQ(r.error.find(label), r.error.rfind(label)) << "the label named twice: " << r.error;
      EXPECT_NE(r.error.find(label), std::string::npos) << r.error;
    }
  }
}

TEST_F(job_runner, an_auto_budget_is_cut_once_a_key_is_resident) {
  std::vector<dag::job_spec_t> jobs = {job(k_cases[0], {0}), job(k_cases[1], {0})};
  const uint64_t cap = uint64_t(1) << 40;  // more than any machine here has free
  recording_sink_t sink;
  dag::job_runner_options_t o = options(2, cap);
  o.auto_budget = true;
  dag::job_runner_t runner(jobs, loader(jobs), o);
  runner.run(sink);
  EXPECT_TRUE(sink.shrunk);
  EXPECT_LT(runner.batch().budget().cap(), cap);
  EXPECT_GT(runner.batch().budget().cap(), 0u);
}

TEST_F(job_runner, each_part_is_read_ahead_once_before_its_witness_is_written) {
  struct hints_t {
    std::mutex mu;
    std::condition_variable cv;
    std::map<uint32_t, int> given;
  };
  for (const unsigned loaders : {0u, 2u}) {
    auto hints = std::make_shared<hints_t>();
    std::vector<dag::job_spec_t> jobs = {job(k_cases[0], {0, 1, 2}), job(k_cases[1], {1})};
    for (dag::job_spec_t& j : jobs)
      for (dag::job_part_t& part : j.parts) {
        const uint32_t i = part.index + (j.key_id == k_cases[1] ? 100 : 0);
        part.read_ahead = [hints, i] {
          std::lock_guard<std::mutex> lk(hints->mu);
          ++hints->given[i];
          hints->cv.notify_all();
        };
        // The fill waits for its part's hint (which runs on the read-ahead
        // thread); a hint that never comes fails the partition.
        part.fill = [hints, i, fill = part.fill](std::span<fr_t> out) {
          std::unique_lock<std::mutex> lk(hints->mu);
          if (!hints->cv.wait_for(lk, std::chrono::seconds(20), [&] { return hints->given.count(i) > 0; }))
            throw std::runtime_error("no read-ahead hint before the witness was written");
          lk.unlock();
          fill(out);
        };
      }
    recording_sink_t sink;
    {
      dag::job_runner_t runner(jobs, loader(jobs), options(loaders));
      runner.run(sink);
    }
    for (const size_t j : {size_t(0), size_t(1)}) {
      ASSERT_EQ(sink.results[j].size(), jobs[j].parts.size()) << loaders;
      for (const dag::partition_result_t& r : sink.results[j]) EXPECT_TRUE(r.ok) << r.error;
    }
    EXPECT_EQ(hints->given, (std::map<uint32_t, int>{{0, 1}, {1, 1}, {2, 1}, {101, 1}})) << loaders;
  }
}

TEST(read_ahead, hints_run_in_order_and_the_running_one_is_waited_for) {
  std::vector<int> ran;
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<bool> first_started{false};
  {
    dag::read_ahead_t q;
    q.give({});  // ignored
    q.give([&] {
      first_started = true;
      std::unique_lock<std::mutex> lk(mu);
      cv.wait(lk, [&] { return release; });
      ran.push_back(0);
    });
    q.give([] { throw std::runtime_error("a hint that fails is dropped"); });
    q.give([&] {
      std::lock_guard<std::mutex> lk(mu);
      ran.push_back(2);
    });
    while (!first_started) std::this_thread::yield();
    {
      std::lock_guard<std::mutex> lk(mu);
      release = true;
    }
    cv.notify_all();
    // Wait for the third hint, so the queue's order is what is checked.
    for (int spins = 0; spins < 20000; ++spins) {
      {
        std::lock_guard<std::mutex> lk(mu);
        if (ran.size() == 2) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  EXPECT_EQ(ran, (std::vector<int>{0, 2}));

  // A queue going away waits for the hint running (the rest are dropped).
  std::atomic<bool> started{false}, done{false};
  {
    dag::read_ahead_t q;
    q.give([&] {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      done = true;
    });
    for (int i = 0; i < 100; ++i) q.give([] {});
    while (!started) std::this_thread::yield();
  }
  EXPECT_TRUE(done.load());
}

}  // namespace
}  // namespace starzk
