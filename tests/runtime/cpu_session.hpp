// cpu_session.hpp: the StarPU session the CPU tests start: CPU workers
// only, the policy the test names (STARPU_SCHED unset, so that it cannot
// override it), profiling on for the trace. One definition for the
// runtime, policy and DAG tests.
#pragma once

#include <cstdlib>
#include <string>

#include "runtime/starpu_session.hpp"

namespace starzk::test {

inline runtime::session_options_t cpu_session(const std::string& policy, int ncpu = 2) {
  unsetenv("STARPU_SCHED");
  runtime::session_options_t o;
  o.policy = policy;
  o.ncpu = ncpu;
  o.ncuda = 0;
  o.profiling = true;
  return o;
}

}  // namespace starzk::test
