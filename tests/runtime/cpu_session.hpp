// cpu_session.hpp: the StarPU session the CPU tests start: CPU workers
// only, the policy the test names (STARPU_SCHED unset, so that it cannot
// override it), profiling on for the trace. One definition for the
// runtime, policy and DAG tests; and what_of, the message of the
// std::runtime_error a call throws ("" when it throws none).
#pragma once

#include <cstdlib>
#include <functional>
#include <stdexcept>
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

inline std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace starzk::test
