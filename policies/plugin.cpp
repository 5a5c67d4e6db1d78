// plugin.cpp: policies added at run time (starzk_plugin.h).
//
// Engine policies defined by name: each is a struct starpu_sched_policy
// whose init_sched is one shared function; StarPU copies the struct into
// the context before it calls init_sched, so that function finds the
// rules by the policy name the context holds.
//
// Plug-ins: dlopen (RTLD_NOW, so a missing symbol fails the load and not a
// later task; RTLD_LOCAL, so two plug-ins do not see each other), look up
// starzk_plugin_abi and starzk_plugin_policies (STARZK_PLUGIN), check the
// ABI, then check and register every policy at once or none. A plug-in is
// never unloaded: StarPU contexts may run its code until the process ends.

#include "policies/plugin.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <starpu.h>
#include <starpu_scheduler.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "policies/engine.hpp"
#include "policies/rules.hpp"
#include "policies/starzk_plugin.h"

namespace starzk::policies {

namespace {

struct defined_t {
  std::string name, description;
  rule_set_t rules;
  starpu_sched_policy policy{};
};

std::mutex g_mu;  // guards everything below
std::vector<std::unique_ptr<defined_t>> g_defined;
std::vector<starpu_sched_policy*> g_plugged;
std::set<std::string> g_loaded_files;  // canonical paths
std::vector<const char*> g_names;      // rebuilt when g_names_stale
bool g_names_stale = true;
std::atomic<bool> g_loaded_explicitly{false};

bool starpu_has(const char* name) {
  for (starpu_sched_policy** p = starpu_sched_get_predefined_policies(); p && *p; ++p)
    if ((*p)->policy_name && std::strcmp((*p)->policy_name, name) == 0) return true;
  return false;
}

// A policy of ours, StarPU's, defined or plugged in, with this name; "" if
// the name is free. Caller holds g_mu.
std::string taken_by(const char* name) {
  if (builtin_policy_by_name(name)) return "a starzk policy";
  if (starpu_has(name)) return "a StarPU policy";
  for (auto& d : g_defined)
    if (d->name == name) return "a policy defined before";
  for (starpu_sched_policy* p : g_plugged)
    if (std::strcmp(p->policy_name, name) == 0) return "a policy of a plug-in loaded before";
  return "";
}

starpu_sched_policy* find_locked(const char* name) {
  for (auto& d : g_defined)
    if (d->name == name) return &d->policy;
  for (starpu_sched_policy* p : g_plugged)
    if (std::strcmp(p->policy_name, name) == 0) return p;
  return nullptr;
}

void init_defined(unsigned sched_ctx_id) {
  const starpu_sched_policy* self = starpu_sched_ctx_get_sched_policy(sched_ctx_id);
  rule_set_t rules;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    for (auto& d : g_defined)
      if (self && self->policy_name && d->name == self->policy_name) rules = d->rules;
  }
  engine_init(sched_ctx_id, rules);
}

int fail(char* err, std::size_t len, const std::string& message) {
  if (err && len > 0) std::snprintf(err, len, "%s", message.c_str());
  return -1;
}

// Check a plug-in's list (every policy, names unique) and register it all.
// Caller holds g_mu.
std::string register_list(starpu_sched_policy** list) {
  if (!list) return "starzk_plugin_policies() returned NULL";
  std::vector<starpu_sched_policy*> add;
  for (starpu_sched_policy** p = list; *p; ++p) {
    starpu_sched_policy* q = *p;
    if (!q->policy_name || !*q->policy_name) return "a policy has no name";
    const std::string name = q->policy_name;
    if (!q->push_task || !q->pop_task) return "policy '" + name + "' has no push_task or no pop_task";
    if (find_locked(q->policy_name) == q) continue;  // an engine policy the plug-in defined
    if (std::string by = taken_by(q->policy_name); !by.empty()) return "policy name '" + name + "' is taken by " + by;
    for (starpu_sched_policy* a : add)
      if (name == a->policy_name) return "policy name '" + name + "' appears twice";
    add.push_back(q);
  }
  g_plugged.insert(g_plugged.end(), add.begin(), add.end());
  g_names_stale = true;
  return "";
}

int load_one(const std::string& path, char* err, std::size_t len) {
  const std::string what = path + ": cannot load policy plug-in: ";
  char resolved[PATH_MAX];
  if (!realpath(path.c_str(), resolved)) return fail(err, len, what + std::strerror(errno));
  {
    std::lock_guard<std::mutex> lk(g_mu);
    if (g_loaded_files.count(resolved)) return 0;
  }
  void* handle = dlopen(resolved, RTLD_NOW | RTLD_LOCAL);
  if (!handle) return fail(err, len, what + dlerror());
  auto abi = reinterpret_cast<int (*)()>(dlsym(handle, "starzk_plugin_abi"));
  auto list = reinterpret_cast<starpu_sched_policy** (*)()>(dlsym(handle, "starzk_plugin_policies"));
  if (!abi || !list) {
    dlclose(handle);
    return fail(err, len, path + ": not a starzk policy plug-in (no STARZK_PLUGIN; see policies/starzk_plugin.h)");
  }
  if (const int a = abi(); a != STARZK_PLUGIN_ABI) {
    dlclose(handle);
    return fail(err, len,
                path + ": built for plug-in ABI " + std::to_string(a) + " (contract " + std::to_string(a / 10000) +
                    ", StarPU " + std::to_string(a / 100 % 100) + "." + std::to_string(a % 100) +
                    "); this library is " + std::to_string(STARZK_PLUGIN_ABI));
  }
  starpu_sched_policy** policies = list();  // may define engine policies: not under g_mu
  std::lock_guard<std::mutex> lk(g_mu);
  if (std::string problem = register_list(policies); !problem.empty()) return fail(err, len, path + ": " + problem);
  g_loaded_files.insert(resolved);
  return 0;
}

}  // namespace

starpu_sched_policy* extra_policy_by_name(const char* name) {
  // A program that never loads plug-ins itself still gets the ones the
  // environment names; it hears of a bad one once, on stderr.
  static std::atomic<bool> told{false};
  char err[1024];
  if (!g_loaded_explicitly.load() && starzk_policy_plugins_load_env(err, sizeof err) != 0 && !told.exchange(true))
    std::fprintf(stderr, "%s\n", err);
  std::lock_guard<std::mutex> lk(g_mu);
  return find_locked(name);
}

const char* const* all_policy_names(starpu_sched_policy* const* builtins) {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_names_stale) return g_names.data();
  g_names_stale = false;
  g_names.clear();
  for (starpu_sched_policy* const* p = builtins; *p; ++p) g_names.push_back((*p)->policy_name);
  for (auto& d : g_defined) g_names.push_back(d->name.c_str());
  for (starpu_sched_policy* p : g_plugged) g_names.push_back(p->policy_name);
  g_names.push_back(nullptr);
  return g_names.data();
}

}  // namespace starzk::policies

using namespace starzk::policies;

extern "C" {

void starzk_policy_rules_default(struct starzk_policy_config* rules) {
  if (rules) rules_to_config(rule_set_t{}, rules);
}

struct starpu_sched_policy* starzk_engine_policy_define(const char* name, const char* description,
                                                        const struct starzk_policy_config* rules) {
  if (!name || !*name || !rules) return nullptr;
  std::lock_guard<std::mutex> lk(g_mu);
  if (!taken_by(name).empty()) return nullptr;
  auto d = std::make_unique<defined_t>();
  d->name = name;
  d->description = description ? description : name;
  d->rules = rules_from_config(*rules);
  d->policy = engine_policy(init_defined, d->name.c_str(), d->description.c_str());
  g_defined.push_back(std::move(d));
  g_names_stale = true;
  return &g_defined.back()->policy;
}

int starzk_policy_plugin_load(const char* path, char* err, size_t err_len) {
  g_loaded_explicitly = true;
  if (!path || !*path) return fail(err, err_len, "policy plug-in: empty path");
  return load_one(path, err, err_len);
}

int starzk_policy_plugins_load_env(char* err, size_t err_len) {
  static std::once_flag once;
  static int result = 0;
  static std::string message;
  std::call_once(once, [] {
    const char* env = std::getenv("STARZK_POLICY_PLUGIN");
    std::string paths = env ? env : "";
    char buf[1024];
    for (std::size_t at = 0; result == 0 && at < paths.size();) {
      std::size_t end = paths.find(':', at);
      if (end == std::string::npos) end = paths.size();
      if (end > at && load_one(paths.substr(at, end - at), buf, sizeof buf) != 0) {
        result = -1;
        message = std::string("STARZK_POLICY_PLUGIN: ") + buf;
      }
      at = end + 1;
    }
  });
  if (result != 0) fail(err, err_len, message);
  return result;
}

}  // extern "C"
