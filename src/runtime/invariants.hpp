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
// Intervals touching at one instant do not overlap.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/trace.hpp"

namespace starzk::runtime {

struct invariant_options_t
{
	int mem_heavy_max = -1;          // -1: skip the cap check
	bool serial_free = true;
	bool chains_contiguous = true;
	bool all_finished = true;
};

// The largest number of events satisfying `keep` that ran at one instant.
int max_concurrent(const trace_t &trace, const std::function<bool(const trace_event_t &)> &keep);

std::vector<std::string> check_mem_heavy_cap(const trace_t &trace, int cap);
std::vector<std::string> check_serial_free(const trace_t &trace);
std::vector<std::string> check_chains_contiguous(const trace_t &trace);
std::vector<std::string> check_all_finished(const trace_t &trace);

// All the checks the options ask for, violations concatenated.
std::vector<std::string> check_invariants(const trace_t &trace, const invariant_options_t &options);

}  // namespace starzk::runtime
