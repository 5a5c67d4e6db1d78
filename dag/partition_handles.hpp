// partition_handles.hpp: how a partition's data become StarPU handles
// (dag/partition_dag.cpp registers them): its vectors of F_r elements (w,
// a, b, c), optionally uncached, and its small variables (prep, the MSM
// results, the proof).
#pragma once

#include <starpu.h>

#include <cstdint>
#include <vector>

#include "ff/fr.hpp"

namespace starzk::dag {

// w, a, b or c, a vector of n F_r elements: on `home` (n values in host
// memory), or with no home (StarPU allocates it on the memory node of the
// first task that writes it). Uncached: StarPU's vector interface with one
// difference, a device buffer of the handle is freed when the handle is
// invalidated, not kept in StarPU's cache of freed buffers for the next
// allocation of that size (partition_handles.cpp says why). Throws
// std::runtime_error for n above what a StarPU vector holds.
starpu_data_handle_t register_fr_vector(uint64_t n, std::vector<fr_t>* home, bool uncached);

// A variable of the partition's state, at home in main memory.
template <class T>
starpu_data_handle_t register_variable(T& x) {
  starpu_data_handle_t h = nullptr;
  starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&x), sizeof(T));
  return h;
}

}  // namespace starzk::dag
