// dag_test_util.hpp: StarPU sessions for the DAG tests (CPU workers only,
// the policy chosen by the test, profiling on for the trace recorder).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "dag/key_bundle.hpp"
#include "runtime/starpu_session.hpp"
#include "test_inputs.hpp"

namespace starzk::test {

inline runtime::session_options_t cpu_session(const std::string& policy, int ncpu = 2) {
  unsetenv("STARPU_SCHED");  // the test picks the policy
  runtime::session_options_t o;
  o.policy = policy;
  o.ncpu = ncpu;
  o.ncuda = 0;
  o.profiling = true;
  return o;
}

inline std::shared_ptr<const dag::key_bundle_t> bundle(const prove_case_t& c) {
  return std::make_shared<const dag::key_bundle_t>(c.pk, c.cs, c.name, 1);
}

}  // namespace starzk::test
