// starpu_session.cpp: StarPU start-up and shutdown (see starpu_session.hpp).

#include "runtime/starpu_session.hpp"

#include <starpu.h>
#include <starpu_profiling.h>
#include <starpu_scheduler.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>

#include "policies/starzk_plugin.h"
#include "policies/starzk_policies.h"
#include "runtime/perfmodels.hpp"
#include "util/config.hpp"

namespace starzk::runtime {

void check_starpu(int rc, const char* call) {
  if (rc < 0) throw std::runtime_error(std::string("StarPU: ") + call + " failed: " + std::strerror(-rc));
}

namespace {

// The registered set-ups, by policy name (filled by static initialisers of
// other libraries, hence a function-local static).
std::map<std::string, policy_setup_t>& policy_setups() {
  static std::map<std::string, policy_setup_t> setups;
  return setups;
}
std::mutex policy_setups_mu;

}  // namespace

void starpu_session::set_policy_setup(const std::string& policy, policy_setup_t setup) {
  std::lock_guard<std::mutex> lk(policy_setups_mu);
  policy_setups()[policy] = setup;
}

std::vector<std::string> starpu_session::builtin_policy_names() {
  std::vector<std::string> names;
  for (starpu_sched_policy** p = starpu_sched_get_predefined_policies(); p && *p; ++p)
    if ((*p)->policy_name) names.emplace_back((*p)->policy_name);
  return names;
}

void starpu_session::load_policy_plugin(const std::string& path) {
  char error[1024];
  const int rc = path.empty() ? starzk_policy_plugins_load_env(error, sizeof error)
                              : starzk_policy_plugin_load(path.c_str(), error, sizeof error);
  if (rc != 0) throw std::runtime_error(error);
}

std::vector<std::string> starpu_session::policy_names() {
  std::vector<std::string> names;
  for (const char* const* n = starzk_policy_names(); *n; ++n) names.emplace_back(*n);
  for (auto& n : builtin_policy_names()) names.push_back(n);
  return names;
}

starpu_session::starpu_session(const session_options_t& options) {
  if (starpu_is_initialized()) throw std::runtime_error("starpu_session: StarPU is already running in this process");
  char env_error[256];
  if (starzk_policies_check_env(env_error, sizeof env_error) != 0) throw std::runtime_error(env_error);
  load_policy_plugin(options.policy_plugin);

  // The option wins; STARPU_SCHED names the policy only when the program
  // asked for none. StarPU 1.3 would let STARPU_SCHED override a
  // sched_policy_name, so it is removed when the option decides.
  policy_ = options.policy.empty() ? "starzk" : options.policy;
  if (const char* env = std::getenv("STARPU_SCHED"); env && *env) {
    if (options.policy.empty())
      policy_ = env;
    else
      unsetenv("STARPU_SCHED");
  }

  std::string models = options.perfmodels;
  if (const auto env = config::get_word("STARZK_CALIBRATED_MODELS"); models.empty() && env) models = *env;
  if (!models.empty()) seed_perfmodels(models);
  // A node's GPUs are alike: one CUDA history serves them all, so a
  // second GPU starts calibrated too.
  setenv("STARPU_PERF_MODEL_HOMOGENEOUS_CUDA", "1", 0);

  starpu_conf conf;
  check_starpu(starpu_conf_init(&conf), "starpu_conf_init");
  if (starpu_sched_policy* ours = starzk_policy_by_name(policy_.c_str())) {
    conf.sched_policy = ours;
    ours_ = true;
  } else {
    bool known = false;
    for (auto& n : builtin_policy_names()) known = known || n == policy_;
    if (!known) {
      std::string list;
      for (auto& n : policy_names()) list += (list.empty() ? "" : ", ") + n;
      throw std::runtime_error("starpu_session: unknown scheduling policy '" + policy_ + "' (known: " + list + ")");
    }
    conf.sched_policy_name = policy_.c_str();
    policy_setup_t setup;
    {
      std::lock_guard<std::mutex> lk(policy_setups_mu);
      if (auto it = policy_setups().find(policy_); it != policy_setups().end()) setup = it->second;
    }
    if (setup.prepare) setup.prepare();
    conf.sched_policy_init = setup.init;
  }
  // Explicit counts win over STARPU_NCPU / STARPU_NCUDA; those still
  // apply to whatever the caller left at -1 (starpu_conf_init read them).
  if (options.ncpu >= 0) conf.ncpus = options.ncpu;
  if (options.ncuda >= 0) conf.ncuda = options.ncuda;
  if (options.ncpu >= 0 || options.ncuda >= 0) conf.precedence_over_environment_variables = 1;

  int rc = starpu_init(&conf);
  if (rc == -ENODEV)
    throw std::runtime_error("StarPU: starpu_init found no worker (ncpu=" + std::to_string(options.ncpu) +
                             ", ncuda=" + std::to_string(options.ncuda) + ")");
  check_starpu(rc, "starpu_init");
  // Profiling: on when asked; otherwise off unless STARPU_PROFILING asks
  // for it (the flag outlives starpu_shutdown within one process).
  const char* env_prof = std::getenv("STARPU_PROFILING");
  if (options.profiling || !(env_prof && *env_prof && std::strcmp(env_prof, "0") != 0)) {
    rc = starpu_profiling_status_set(options.profiling ? STARPU_PROFILING_ENABLE : STARPU_PROFILING_DISABLE);
    if (rc < 0) {
      starpu_shutdown();
      check_starpu(rc, "starpu_profiling_status_set");
    }
  }
}

starpu_session::~starpu_session() {
  starpu_task_wait_for_all();
  starpu_shutdown();
}

unsigned starpu_session::cpu_workers() const { return starpu_cpu_worker_get_count(); }
unsigned starpu_session::cuda_workers() const { return starpu_cuda_worker_get_count(); }

}  // namespace starzk::runtime
