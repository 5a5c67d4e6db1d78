// random_dag.hpp: seeded random task graphs shaped like starzk's proofs,
// for running the policies on CPU-only machines.
//
// A graph has several jobs; each job has partitions (chains). Per partition:
//   pre   MEMORY_HEAVY / LIGHT tasks (spmv, prep_msm stand-ins) that may
//         depend on earlier pre tasks of any partition or job;
//   chain GPU_CHAIN tasks tagged with the partition id; each depends on
//         an earlier task of its chain and on some pre tasks; the last one
//         depends on every other task of the chain and carries is_last;
//   post  DEALLOC and LIGHT tasks after the chain's last task.
// No chain waits on another chain's GPU_CHAIN tasks (the rule a DAG must
// follow under the GPU lock). Each dependency goes through a data handle
// (the successor reads the predecessor's buffer) or, at random, through
// starpu_task_declare_deps_array. Task bodies sleep 0.2-5 ms and touch
// their buffers.
#pragma once

#include <starpu.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../runtime/cpu_session.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

namespace starzk::test {

struct dag_shape_t {
  int jobs = 3;
  int partitions_per_job = 2;
  int pre_per_partition = 4;
  int chain_len = 4;
  int post_per_partition = 2;
  int extra_per_job = 4;  // unattached LIGHT / MEMORY_HEAVY tasks
  int min_us = 200, max_us = 5000;
  bool priorities = true;  // random task priorities in [0, 3]
};

struct task_spec_t {
  int rc = 0;
  std::uint32_t job = 0;
  int chain = -1;  // partition id or -1
  bool last = false;
  int duration_us = 0;
  int priority = 0;
  std::vector<int> data_deps;      // read the buffer of these tasks
  std::vector<int> explicit_deps;  // starpu_task_declare_deps_array
};

std::vector<task_spec_t> make_random_dag(std::uint64_t seed, const dag_shape_t& shape);

// `count` independent MEMORY_HEAVY tasks of `duration_us` each.
std::vector<task_spec_t> make_wide_memory_dag(int count, int duration_us);

// 4 chains of 5 independent GPU_CHAIN tasks (2 ms each) plus a last task
// depending on them: without a lock the workers start chain 1 while chain
// 0 waits for its last task.
std::vector<task_spec_t> make_parallel_chains_dag();

// Submit the graph (StarPU must be running, profiling on) through the
// recorder, wait for all of it, unregister its data. With `gpu_chain_on_cuda`
// the GPU_CHAIN codelets also get a CUDA implementation (a host function
// that only sleeps: no kernel, so it builds without nvcc; StarPU still
// moves the buffers to the device).
void run_dag(const std::vector<task_spec_t>& dag, runtime::trace_recorder& recorder, bool gpu_chain_on_cuda = false);

// run_dag's GPU_CHAIN codelet with `reads` input buffers (and, with `cuda`,
// its CUDA implementation), for asking StarPU which workers can run it.
starpu_codelet* chain_codelet(int reads, bool cuda);

}  // namespace starzk::test
