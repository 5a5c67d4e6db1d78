// topology.hpp: what the rules need to know about a worker, read once from
// StarPU and hwloc: its kind (CPU, CUDA), its lock domain and its L3 domain.
//
// Lock domain = the worker's StarPU memory node. Every CUDA device has its
// own node, so each GPU is one domain (shared by all workers of that
// device); CPU workers share main RAM (node 0), so the CPU workers together
// form one domain. That makes the GPU lock observable on CPU-only machines:
// GPU_CHAIN tasks that StarPU places on CPU workers obey "one chain at a
// time" in the CPU domain, and a trace shows it.
//
// L3 domain = the logical index of the L3 cache above the worker's core in
// hwloc's tree (-1 when hwloc has no L3 above it, e.g. CUDA workers).
#pragma once

#include <vector>

namespace starzk::policies {

enum class worker_kind_t { cpu, cuda, other };

struct worker_place_t {
  worker_kind_t kind = worker_kind_t::other;
  unsigned lock_domain = 0;  // StarPU memory node
  int l3 = -1;               // hwloc logical index of the L3 cache, -1 if none
};

// Describe one StarPU worker (StarPU must be running).
worker_place_t describe_worker(int workerid);

// Default MEMORY_HEAVY cap: distinct L3 domains among `cpu_workers`, else
// the machine's NUMA nodes, else its packages; at least 1.
int default_mem_heavy_max(const std::vector<int>& cpu_workers);

}  // namespace starzk::policies
