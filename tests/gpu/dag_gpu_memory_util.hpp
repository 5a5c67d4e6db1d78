// What the GPU memory tests share (tests/gpu/dag_gpu_memory_test.cpp,
// dag_gpu_memory_limited_test.cpp): a batch proved in one job with its
// trace recorded, counted by codelet and worker kind, and the check of its
// proofs against the CPU reference prover's for fixed r, s.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dag/batch.hpp"
#include "dag/key_bundle.hpp"
#include "dag_test_util.hpp"
#include "groth16/proof_bytes.hpp"
#include "groth16/prover.hpp"
#include "groth16/verifier.hpp"
#include "runtime/trace.hpp"

namespace starzk::test {

inline constexpr const char* any_place = "spmv=any,spmv_passes=any,ntt_h=any,ntt_h_passes=any,msm=any,b_g2_msm=any";

struct run_t {
  std::map<uint32_t, proof_t> proofs;
  std::map<std::string, std::map<std::string, int>> ran;  // codelet -> worker kind -> tasks
  int gpu_tasks_fetching = 0;                  // CUDA tasks that found a buffer they read off the device when taken
  std::map<std::string, int> fetching;         // the same per codelet
  std::vector<runtime::trace_event_t> events;  // the trace
  uint64_t cap = 0, peak = 0, left = 0;        // the host budget: its cap, its peak, in use at the end
  // Tasks of `codelet` that ran on workers of `kind` ("cpu", "cuda").
  int count(const std::string& codelet, const std::string& kind) const {
    const auto c = ran.find(codelet);
    if (c == ran.end()) return 0;
    const auto k = c->second.find(kind);
    return k == c->second.end() ? 0 : k->second;
  }
};

// Proves every witness of the key in one job, fixed r, s (on `loaders`
// threads: batch_options_t::loaders; with `cap_partitions`, a host budget
// of that many partitions' reservations); every partition must succeed.
inline run_t prove_all(const std::shared_ptr<const dag::key_bundle_t>& key,
                       const std::vector<std::vector<fr_t>>& witnesses, const blinding_t& rs, unsigned loaders = 0,
                       double cap_partitions = 0) {
  runtime::trace_recorder rec;
  run_t out;
  {
    dag::batch_t batch(dag::batch_options_t{.threads_per_task = 2, .trace = &rec, .loaders = loaders});
    if (cap_partitions > 0) batch.set_memory_cap(out.cap = uint64_t(cap_partitions * double(batch.reservation(*key))));
    const uint32_t job = batch.open_job(key, key->name());
    for (uint32_t i = 0; i < witnesses.size(); ++i)
      batch.submit(job, i, witnesses[i], key->name() + "/" + std::to_string(i), rs);
    batch.close_job(job);
    while (auto r = batch.wait_next()) {
      EXPECT_TRUE(r->ok) << r->error;
      if (r->ok) out.proofs[r->index] = r->proof;
    }
    out.peak = batch.budget().peak();
    out.left = batch.budget().in_use();
  }
  out.events = rec.snapshot().events;
  for (const auto& e : out.events) {
    ++out.ran[e.codelet][e.worker_kind];
    const bool fetching = e.worker_kind == "cuda" && !e.missing.empty();
    out.gpu_tasks_fetching += fetching;
    out.fetching[e.codelet] += fetching;
  }
  return out;
}

inline void expect_reference(const test::prove_case_t& c, const run_t& got, const blinding_t& rs,
                             const std::string& what) {
  ASSERT_EQ(got.proofs.size(), c.witnesses.size()) << what;
  for (uint32_t i = 0; i < c.witnesses.size(); ++i) {
    const proof_t ref = prove_with_blinding(*c.pk, c.cs.get(), c.witnesses[i], rs, 1);
    EXPECT_EQ(encode_proof(got.proofs.at(i)), encode_proof(ref)) << what << ": " << c.name << " partition " << i;
    EXPECT_TRUE(verify(c.pk->vk, public_inputs(*c.pk, c.witnesses[i]), got.proofs.at(i))) << what;
  }
}

}  // namespace starzk::test
