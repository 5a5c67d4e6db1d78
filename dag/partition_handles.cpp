// partition_handles.cpp: a partition's vectors as StarPU handles (see
// partition_handles.hpp).
#include "dag/partition_handles.hpp"

#include <stdexcept>
#include <string>

namespace starzk::dag {

namespace {

// StarPU's vector interface with one difference: a device buffer of the
// handle is freed when the handle is invalidated, not kept in StarPU's
// cache of freed buffers for the next allocation of that size. That cache
// counts as used memory (starpu_memory_get_available), so where a, b, c
// are made on the device (key_bundle_t::rows_made_on_device) b and c,
// invalidated after the H phase, would leave the chain's MSMs 8 GiB less
// scratch at 2^27 than the memory plan gives them (docs/benchmarks.md,
// "a, b, c made on the device"); and where the H phase runs in passes
// (a, b, c in host memory, h and w copied to the device for the MSMs) a
// cached copy of h or of the last chain's w would leave the next chain's
// H phase 4 GiB short of its second vector ("The H phase's two vectors
// under 16 GB").
starpu_data_interface_ops* uncached_vector_ops() {
  static starpu_data_interface_ops ops = [] {
    starpu_data_interface_ops o = starpu_interface_vector_ops;
    o.dontcache = 1;
    return o;
  }();
  return &ops;
}

}  // namespace

starpu_data_handle_t register_fr_vector(uint64_t n, std::vector<fr_t>* home, bool uncached) {
  if (n > UINT32_MAX)
    throw std::runtime_error("a vector of " + std::to_string(n) + " elements is too large for a StarPU vector");
  if (home && home->size() != n) throw std::logic_error("a vector's home buffer is not of its size");
  // The vector interface as starpu_vector_data_register fills it, with the
  // ops chosen here.
  starpu_vector_interface v{};
  v.id = STARPU_VECTOR_INTERFACE_ID;
  v.ptr = v.dev_handle = home ? reinterpret_cast<uintptr_t>(home->data()) : 0;
  v.offset = 0;
  v.nx = uint32_t(n);
  v.elemsize = sizeof(fr_t);
  v.allocsize = n * sizeof(fr_t);
  starpu_data_handle_t h = nullptr;
  starpu_data_register(&h, home ? STARPU_MAIN_RAM : -1, &v,
                       uncached ? uncached_vector_ops() : &starpu_interface_vector_ops);
  return h;
}

}  // namespace starzk::dag
