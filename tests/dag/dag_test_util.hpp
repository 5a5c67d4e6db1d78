// dag_test_util.hpp: StarPU sessions for the DAG tests (CPU workers only,
// the policy chosen by the test, profiling on for the trace recorder; or
// with one CUDA worker for the GPU tests), a key bundle of a test case,
// and (through tests/test_support.hpp) an environment variable set for
// one scope.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "dag/key_bundle.hpp"
#include "../runtime/cpu_session.hpp"
#include "../test_support.hpp"
#include "runtime/starpu_session.hpp"
#include "test_inputs.hpp"

namespace starzk::test {

inline std::shared_ptr<const dag::key_bundle_t> bundle(const prove_case_t& c) {
  return std::make_shared<const dag::key_bundle_t>(c.pk, c.cs, c.name, 1);
}

// Two CPU workers and one CUDA worker under `policy`.
inline runtime::session_options_t gpu_session_options(const std::string& policy) {
  runtime::session_options_t so = cpu_session(policy, 2);
  so.ncuda = 1;
  return so;
}

// A session of gpu_session_options; null where StarPU found no CUDA worker
// (no GPU, or a StarPU without CUDA), so the caller skips:
// `auto s = test::gpu_session("starzk"); if (!s) GTEST_SKIP() << ...`.
inline std::unique_ptr<runtime::starpu_session> gpu_session(const std::string& policy) {
  auto session = std::make_unique<runtime::starpu_session>(gpu_session_options(policy));
  if (session->cuda_workers() == 0) session.reset();
  return session;
}

}  // namespace starzk::test
