// plugin.hpp: the policies that come after the library was built (see
// starzk_plugin.h): engine policies defined at run time and plug-in
// policies loaded from shared objects, for registry.cpp.
#pragma once

struct starpu_sched_policy;

namespace starzk::policies {

// A defined or plugged-in policy called `name`, or nullptr. The first call
// loads STARZK_POLICY_PLUGIN unless the program loaded a plug-in before.
starpu_sched_policy* extra_policy_by_name(const char* name);

// The names of `builtins` (NULL-terminated), then of the defined and the
// plugged-in policies; NULL-terminated, valid until the next policy is
// defined or loaded.
const char* const* all_policy_names(starpu_sched_policy* const* builtins);

// One of the library's own policies (policy_list.hpp), by name.
starpu_sched_policy* builtin_policy_by_name(const char* name);

}  // namespace starzk::policies
