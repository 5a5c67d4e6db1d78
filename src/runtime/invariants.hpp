// invariants.hpp: what starzk's policies promise, checked on a recorded
// trace (trace.hpp) rather than assumed. Each check returns readable
// violations (empty = the invariant held):
//   - memory-bandwidth interlock: at no instant more than N MEMORY_HEAVY
//     tasks ran on CPU workers (tasks on CUDA workers use device memory
//     and are outside the cap, as in the policy);
//   - serialised deallocation: no two DEALLOC tasks overlapped;
//   - GPU lock: in every lock domain, the GPU_CHAIN tasks of one chain form
//     one contiguous block in time: once a chain has started in a domain,
//     no other chain's GPU_CHAIN task runs there until its last one ended
//     (an untagged GPU_CHAIN task is a chain of its own);
//   - completeness: every submitted task finished.
// promised_invariants() picks the checks a recorded policy promised, for
// `starzk trace check`.
// Intervals touching at one instant do not overlap.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/trace.hpp"

namespace starzk::runtime {

struct invariant_options_t {
  int mem_heavy_max = -1;  // -1: skip the cap check
  bool serial_free = true;
  bool chains_contiguous = true;
  bool chains_in_main_ram = true;  // also check the CPU workers' domain (STARZK_CPU_LOCK)
  bool all_finished = true;
};

// What the policy that recorded `trace` promised, from the rules the
// recorder kept in its meta ("policy_rules": gpu_lock, cpu_lock,
// mem_interlock, mem_heavy_max, serial_free). A trace without them (not an
// engine policy) promises only completeness. Throws std::runtime_error on
// a malformed "policy_rules".
invariant_options_t promised_invariants(const trace_t& trace);
// The checks `options` asks for, in words ("completeness, memory-heavy cap 2, ...").
std::string describe_checks(const invariant_options_t& options);

// The largest number of events satisfying `keep` that ran at one instant.
int max_concurrent(const trace_t& trace, const std::function<bool(const trace_event_t&)>& keep);

std::vector<std::string> check_mem_heavy_cap(const trace_t& trace, int cap);
std::vector<std::string> check_serial_free(const trace_t& trace);
// include_main_ram = false leaves out the CPU workers' domain (memory
// node 0), where the engine locks chains only with STARZK_CPU_LOCK.
std::vector<std::string> check_chains_contiguous(const trace_t& trace, bool include_main_ram = true);
std::vector<std::string> check_all_finished(const trace_t& trace);

// All the checks the options ask for, violations concatenated.
std::vector<std::string> check_invariants(const trace_t& trace, const invariant_options_t& options);

}  // namespace starzk::runtime
