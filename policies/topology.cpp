// topology.cpp: StarPU worker -> (kind, lock domain, L3 domain), and the
// default memory-bandwidth cap, from hwloc as StarPU sees the machine.
//
// Why L3 domains for the cap: on the machines cuzk measured (Threadripper
// 7995WX, 12 CCDs of 8 cores, each CCD with its own L3 and its own link to
// the memory controllers) a memory-bound single-threaded task saturates the
// link of its CCD long before DRAM. One such task per L3 domain keeps every
// link busy without stacking two on one link. Machines without an L3 level
// fall back to NUMA nodes (one memory controller set each), then packages.
// A StarPU without hwloc (the SimGrid build: a simulated machine has no
// caches to ask about) gives one domain.

#include "policies/topology.hpp"

#include <starpu.h>

#include <set>

#ifdef STARPU_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace starzk::policies {

namespace {

int l3_of([[maybe_unused]] int workerid) {
#ifdef STARPU_HAVE_HWLOC
  hwloc_obj_t obj = starpu_worker_get_hwloc_obj(workerid);
  for (; obj; obj = obj->parent)
    if (obj->type == HWLOC_OBJ_L3CACHE) return static_cast<int>(obj->logical_index);
#endif
  return -1;
}

}  // namespace

worker_place_t describe_worker(int workerid) {
  worker_place_t w;
  switch (starpu_worker_get_type(workerid)) {
    case STARPU_CPU_WORKER:
      w.kind = worker_kind_t::cpu;
      break;
    case STARPU_CUDA_WORKER:
      w.kind = worker_kind_t::cuda;
      break;
    default:
      w.kind = worker_kind_t::other;
      break;
  }
  w.lock_domain = starpu_worker_get_memory_node(static_cast<unsigned>(workerid));
  if (w.kind == worker_kind_t::cpu) w.l3 = l3_of(workerid);
  return w;
}

int default_mem_heavy_max(const std::vector<int>& cpu_workers) {
  std::set<int> l3s;
  for (int w : cpu_workers) {
    int l3 = l3_of(w);
    if (l3 >= 0) l3s.insert(l3);
  }
  if (!l3s.empty()) return static_cast<int>(l3s.size());
#ifdef STARPU_HAVE_HWLOC
  hwloc_topology_t topo = starpu_get_hwloc_topology();
  if (topo) {
    int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    if (numa > 0) return numa;
    int packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    if (packages > 0) return packages;
  }
#endif
  return 1;
}

}  // namespace starzk::policies
