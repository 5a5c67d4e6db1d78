// device_hold_t on a GPU (label gpu; skipped without a CUDA worker): under
// STARPU_LIMIT_CUDA_MEM, two read-only vectors are copied to the device
// and one of them is held there (dag/device_hold.hpp); copying a third one
// that does not fit beside them makes StarPU reclaim what no task uses. The vector not held
// is evicted (the reclaim happened), the held one keeps its valid copy.
// Without the hold both are evicted: the reclaim asks for twice the new
// vector's size.
#include <gtest/gtest.h>

#include <starpu.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "../runtime/cpu_session.hpp"
#include "dag/device_hold.hpp"

namespace starzk {
namespace {

bool valid_on(starpu_data_handle_t h, unsigned node) {
  int allocated = 0, valid = 0, requested = 0;
  starpu_data_query_status(h, int(node), &allocated, &valid, &requested);
  return valid != 0;
}

TEST(device_hold_gpu, a_held_replica_survives_the_reclaim_that_evicts_the_other) {
  constexpr size_t mib = size_t(1) << 20;
  setenv("STARPU_LIMIT_CUDA_MEM", "256", 1);  // MiB, read by starpu_init
  runtime::session_options_t o = test::cpu_session("eager", 1);
  o.ncuda = 1;
  runtime::starpu_session session(o);
  unsetenv("STARPU_LIMIT_CUDA_MEM");
  if (session.cuda_workers() == 0) GTEST_SKIP() << "no CUDA worker (no GPU, or StarPU without CUDA)";
  unsigned node = 0;
  for (unsigned w = 0; w < starpu_worker_get_count(); ++w)
    if (starpu_worker_get_type(int(w)) == STARPU_CUDA_WORKER) node = starpu_worker_get_memory_node(w);

  const size_t n = 64 * mib / sizeof(uint64_t);
  std::vector<uint64_t> a(n, 1), b(n, 2);
  starpu_data_handle_t ha, hb;
  starpu_vector_data_register(&ha, STARPU_MAIN_RAM, uintptr_t(a.data()), uint32_t(n), sizeof(uint64_t));
  starpu_vector_data_register(&hb, STARPU_MAIN_RAM, uintptr_t(b.data()), uint32_t(n), sizeof(uint64_t));
  ASSERT_EQ(starpu_data_fetch_on_node(ha, node, 0), 0);
  ASSERT_EQ(starpu_data_fetch_on_node(hb, node, 0), 0);
  ASSERT_TRUE(valid_on(ha, node));
  ASSERT_TRUE(valid_on(hb, node));

  dag::device_hold_t hold;
  ASSERT_TRUE(hold.hold_if_valid(ha, node));
  for (int i = 0; i < 1000 && hold.held() != 1; ++i) starpu_task_wait_for_all();
  ASSERT_EQ(hold.held(), 1u);

  // 150 MiB beside the 128 MiB of copies does not fit in 256: StarPU
  // reclaims 300 MiB from the copies nobody uses, then has room.
  const size_t nc = 150 * mib / sizeof(uint64_t);
  std::vector<uint64_t> c(nc, 3);
  starpu_data_handle_t hc;
  starpu_vector_data_register(&hc, STARPU_MAIN_RAM, uintptr_t(c.data()), uint32_t(nc), sizeof(uint64_t));
  ASSERT_EQ(starpu_data_fetch_on_node(hc, node, 0), 0);
  EXPECT_TRUE(valid_on(hc, node));
  EXPECT_FALSE(valid_on(hb, node)) << "no reclaim happened: the test proves nothing";
  EXPECT_TRUE(valid_on(ha, node)) << "the held copy was evicted";

  hold.release_all();
  starpu_data_unregister(ha);
  starpu_data_unregister(hb);
  starpu_data_unregister(hc);
}

}  // namespace
}  // namespace starzk
