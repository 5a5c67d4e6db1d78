// starpu_session.hpp: start and stop StarPU as one RAII object, with the
// scheduling policy chosen by name.
//
// A name is looked up first among starzk's policies (starzk, starzk-nolock,
// ..., and those of a policy plug-in loaded first: the option, else
// STARZK_POLICY_PLUGIN; handed to StarPU as a struct through
// starpu_conf.sched_policy, the StarPU 1.3 way), then among StarPU's built-in ones (eager, lws, dmda,
// dmdas, heteroprio, ...; through starpu_conf.sched_policy_name). The
// program's choice wins over the environment: a non-empty STARPU_SCHED
// names the policy only when options.policy is empty, as STARPU_NCPU /
// STARPU_NCUDA give the worker counts only when the options are -1
// (StarPU's default). Profiling is
// switched on when asked, which the trace recorder needs. Calibrated
// performance models are seeded first when asked (perfmodels.hpp), and the
// CUDA models are shared by every GPU of the node
// (STARPU_PERF_MODEL_HOMOGENEOUS_CUDA=1 unless set). A built-in policy
// with a registered set-up (policy_setup_t) gets it. Every StarPU call
// is checked; failures throw std::runtime_error naming the call.
#pragma once

#include <string>
#include <vector>

namespace starzk::runtime {

struct session_options_t {
  std::string policy;         // empty: STARPU_SCHED, else "starzk"
  int ncpu = -1;              // CPU workers; -1: StarPU's default
  int ncuda = -1;             // CUDA workers; -1: StarPU's default
  bool profiling = false;     // turn on StarPU profiling (for trace_recorder)
  std::string perfmodels;     // calibrated models to seed (perfmodels.hpp); empty: $STARZK_CALIBRATED_MODELS
  std::string policy_plugin;  // policy plug-in to load first (policies/starzk_plugin.h); empty: $STARZK_POLICY_PLUGIN
};

// Throw std::runtime_error("StarPU: <call> failed: <strerror(-rc)>") when rc < 0.
void check_starpu(int rc, const char* call);

// What a session does for one of StarPU's built-in policies that takes a
// set-up callback (starpu_conf.sched_policy_init; heteroprio's buckets):
// `prepare` runs in the session's constructor before starpu_init (StarPU
// not running yet: it may read model files and throw), `init` inside
// starpu_init for the initial scheduling context.
struct policy_setup_t {
  void (*prepare)() = nullptr;
  void (*init)(unsigned sched_ctx) = nullptr;
};

class starpu_session {
 public:
  explicit starpu_session(const session_options_t& options = {});
  ~starpu_session();
  starpu_session(const starpu_session&) = delete;
  starpu_session& operator=(const starpu_session&) = delete;

  const std::string& policy_name() const { return policy_; }
  bool runs_starzk_policy() const { return ours_; }
  unsigned cpu_workers() const;
  unsigned cuda_workers() const;

  // Load a policy plug-in (empty: those STARZK_POLICY_PLUGIN names, once);
  // throws std::runtime_error naming the file and the problem.
  static void load_policy_plugin(const std::string& path);
  // StarPU's built-in policy names, and ours (plug-ins' included) followed by StarPU's.
  static std::vector<std::string> builtin_policy_names();
  static std::vector<std::string> policy_names();
  // Every later session of `policy` (a built-in name) uses `setup`; the
  // layer that knows the tasks registers it once (dag/heteroprio.hpp).
  static void set_policy_setup(const std::string& policy, policy_setup_t setup);

 private:
  std::string policy_;
  bool ours_ = false;
};

}  // namespace starzk::runtime
