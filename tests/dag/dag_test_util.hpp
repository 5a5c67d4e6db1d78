// dag_test_util.hpp: StarPU sessions for the DAG tests (CPU workers only,
// the policy chosen by the test, profiling on for the trace recorder).
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "dag/key_bundle.hpp"
#include "../runtime/cpu_session.hpp"
#include "runtime/starpu_session.hpp"
#include "test_inputs.hpp"

namespace starzk::test {

inline std::shared_ptr<const dag::key_bundle_t> bundle(const prove_case_t& c) {
  return std::make_shared<const dag::key_bundle_t>(c.pk, c.cs, c.name, 1);
}

}  // namespace starzk::test
