// heteroprio configured for the proof's codelets (dag/heteroprio.hpp): a
// batch under heteroprio on CPU workers proves and verifies with every task
// in its class's CPU bucket (the priority heteroprio files it under), the
// set-up ran (its plan is on record), and the plan takes the faster kind and
// slow factor from model entries with the minimum samples on both kinds,
// else the documented defaults.
#include <gtest/gtest.h>

#include <starpu.h>

#include <map>

#include "codelets/codelets.hpp"
#include "dag/batch.hpp"
#include "dag/heteroprio.hpp"
#include "dag_test_util.hpp"
#include "groth16/verifier.hpp"
#include "runtime/trace.hpp"

namespace starzk {
namespace {

using dag::hp_bucket;
using dag::hp_class_t;
using dag::hp_where_t;

TEST(dag_heteroprio, a_batch_proves_with_a_bucket_per_codelet_class) {
  const test::prove_case_t& c = test::prove_case("gen-bellman");
  runtime::starpu_session session(test::cpu_session("heteroprio", 2));
  EXPECT_NE(dag::heteroprio_plan_text().find("msm: "), std::string::npos) << dag::heteroprio_plan_text();
  runtime::trace_recorder recorder;
  int verified = 0;
  {
    auto key = test::bundle(c);
    dag::batch_t batch(dag::batch_options_t{.trace = &recorder});
    EXPECT_TRUE(batch.heteroprio_buckets());
    EXPECT_FALSE(batch.priorities());
    for (int j = 0; j < 2; ++j) {
      const uint32_t seq = batch.open_job(key, "job" + std::to_string(j));
      for (int p = 0; p < 2; ++p)
        batch.submit(seq, p, c.witnesses[p], "job" + std::to_string(j) + "/" + std::to_string(p));
      batch.close_job(seq);
    }
    while (auto r = batch.wait_next()) {
      ASSERT_TRUE(r->ok) << r->error;
      EXPECT_TRUE(verify(c.pk->vk, r->publics, r->proof)) << r->label;
      ++verified;
    }
  }
  EXPECT_EQ(verified, 4);
  // CPU workers only: every task may run on the CPUs only, so it sits in
  // its class's CPU bucket.
  const std::map<std::string, hp_class_t> class_of = {
      {"spmv", hp_class_t::spmv}, {"ntt_h", hp_class_t::ntt_h},       {"prep_msm", hp_class_t::prep_msm},
      {"msm", hp_class_t::msm},   {"b_g2_msm", hp_class_t::b_g2_msm}, {"assemble", hp_class_t::assemble},
      {"free", hp_class_t::free}};
  const runtime::trace_t trace = recorder.snapshot();
  ASSERT_FALSE(trace.events.empty());
  std::map<int, int> per_bucket;
  for (const runtime::trace_event_t& e : trace.events) {
    ASSERT_TRUE(class_of.count(e.codelet)) << e.codelet;
    EXPECT_EQ(e.priority, int(hp_bucket(class_of.at(e.codelet), hp_where_t::cpu))) << e.name;
    ++per_bucket[e.priority];
  }
  EXPECT_EQ(per_bucket.size(), class_of.size());  // one bucket per class used
}

runtime::history_entry_t entry(const char* arch, uint32_t fp, double mean_us, unsigned n, uint64_t size = 1024) {
  runtime::history_entry_t e;
  e.arch = arch;
  e.footprint = fp;
  e.mean_us = mean_us;
  e.nsample = n;
  e.size = size;
  return e;
}

TEST(dag_heteroprio, plan_from_calibrated_entries_else_defaults) {
  const std::string spmv = codelets::spmv_codelet()->model->symbol;
  const std::string msm = codelets::msm_codelet()->model->symbol;
  const std::string ntt = codelets::ntt_h_codelet()->model->symbol;
  std::map<std::string, std::vector<runtime::history_entry_t>> models;
  // spmv: two footprints calibrated on both kinds; the one with the longest
  // CPU time (2) decides: the GPU 250x faster.
  models[spmv] = {entry("cpu", 1, 100, 10), entry("cuda", 1, 50, 12), entry("cpu", 2, 5000, 10, 4096),
                  entry("cuda", 2, 20, 10, 4096)};
  // msm: the CPU faster at its only entry (small sizes): CUDA 4x slower.
  models[msm] = {entry("cpu", 7, 10, 11), entry("cuda", 7, 40, 30)};
  // ntt_h: one sample short on the GPU: the default.
  models[ntt] = {entry("cpu", 3, 900, 10), entry("cuda", 3, 1, 9)};
  const dag::hp_plan_t plan = dag::heteroprio_plan(models, 10);
  const dag::hp_factor_t& s = plan[size_t(hp_class_t::spmv)];
  EXPECT_TRUE(s.from_models);
  EXPECT_TRUE(s.gpu_faster);
  EXPECT_FLOAT_EQ(s.slow_factor, 250.0f);
  EXPECT_EQ(s.size, 4096u);
  const dag::hp_factor_t& m = plan[size_t(hp_class_t::msm)];
  EXPECT_TRUE(m.from_models);
  EXPECT_FALSE(m.gpu_faster);
  EXPECT_FLOAT_EQ(m.slow_factor, 4.0f);
  const dag::hp_factor_t& n = plan[size_t(hp_class_t::ntt_h)];
  EXPECT_FALSE(n.from_models);
  EXPECT_TRUE(n.gpu_faster);
  EXPECT_FLOAT_EQ(n.slow_factor, 100.0f);
  EXPECT_FLOAT_EQ(plan[size_t(hp_class_t::b_g2_msm)].slow_factor, 200.0f);
  // With a lower minimum the short entry counts.
  EXPECT_TRUE(dag::heteroprio_plan(models, 9)[size_t(hp_class_t::ntt_h)].from_models);
  // Buckets are distinct and within heteroprio's 100.
  EXPECT_EQ(hp_bucket(hp_class_t::spmv, hp_where_t::both), 1u);
  EXPECT_LT(hp_bucket(hp_class_t::free, hp_where_t::cuda), 100u);
}

}  // namespace
}  // namespace starzk
