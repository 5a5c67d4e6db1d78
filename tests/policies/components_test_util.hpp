// components_test_util.hpp: what the component tests share (the tests of
// starzk's rules as StarPU scheduling components, in
// test_policy_components.cpp and test_policy_components_tree.cpp): a
// session whose policy plug-in is the gated example tree, a random DAG run
// under a policy with the CPU domain locked, and a guard that turns a hang
// into a failure.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "random_dag.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::test {

inline const char* const k_gated_plugin = STARZK_GATED_PLUGIN;

inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += "\n  " + x;
  return s;
}

inline runtime::session_options_t session_for(const std::string& policy, int ncpu) {
  runtime::session_options_t o = cpu_session(policy, ncpu);
  o.policy_plugin = k_gated_plugin;
  return o;
}

// The DAG under `policy` on `ncpu` CPU workers, the CPU domain locked.
inline runtime::trace_t run(const std::string& policy, const std::vector<task_spec_t>& dag, int ncpu) {
  setenv("STARZK_CPU_LOCK", "1", 1);
  runtime::starpu_session session(session_for(policy, ncpu));
  runtime::trace_recorder recorder;
  recorder.set_meta("policy", policy);
  run_dag(dag, recorder);
  unsetenv("STARZK_CPU_LOCK");
  return recorder.snapshot();
}

// Turns a hang into a failure: exits the test binary if `finished` is not
// set within 30 s.
class hang_guard_t {
 public:
  hang_guard_t()
      : thread_([this] {
          for (int i = 0; i < 300 && !finished_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
          if (!finished_) {
            std::fprintf(stderr, "test_policy_components: the run hung for 30 s\n");
            std::_Exit(1);
          }
        }) {}
  ~hang_guard_t() {
    finished_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> finished_{false};
  std::thread thread_;
};

}  // namespace starzk::test
