// StarPU with CUDA, end to end: a codelet with only a CUDA body, submitted
// on a vector handle registered from host memory, must run on a CUDA worker
// (checked from the task's profiling info), move the data there and back,
// and give the right answer. Skipped where StarPU finds no CUDA worker.
#include <gtest/gtest.h>

#include <starpu.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <random>
#include <vector>

cudaError_t launch_double_words(uint64_t* d_v, size_t n, cudaStream_t stream);

namespace {

void double_cuda(void* buffers[], void*) {
  auto* d_v = reinterpret_cast<uint64_t*>(STARPU_VECTOR_GET_PTR(buffers[0]));
  size_t n = STARPU_VECTOR_GET_NX(buffers[0]);
  cudaError_t e = launch_double_words(d_v, n, starpu_cuda_get_local_stream());
  if (e != cudaSuccess) STARPU_CUDA_REPORT_ERROR(e);
}

TEST(StarpuCuda, CodeletRunsOnCudaWorker) {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) GTEST_SKIP() << "no CUDA device";

  starpu_conf conf;
  ASSERT_EQ(starpu_conf_init(&conf), 0);
  conf.ncuda = 1;
  conf.ncpus = 1;
  int ret = starpu_init(&conf);
  if (ret == -ENODEV) GTEST_SKIP() << "StarPU found no worker";
  ASSERT_EQ(ret, 0) << "starpu_init";
  if (starpu_cuda_worker_get_count() == 0) {
    starpu_shutdown();
    GTEST_SKIP() << "StarPU has no CUDA worker (built without CUDA?)";
  }
  starpu_profiling_status_set(STARPU_PROFILING_ENABLE);

  const size_t n = (size_t(1) << 20) + 1;  // not a multiple of the block size
  std::vector<uint64_t> v(n), want(n);
  std::mt19937_64 rng(std::random_device{}());
  for (size_t i = 0; i < n; ++i) {
    v[i] = rng();
    want[i] = v[i] * 2;
  }

  starpu_data_handle_t h;
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, uintptr_t(v.data()), n, sizeof(uint64_t));

  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cuda_funcs[0] = double_cuda;
  cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
  cl.nbuffers = 1;
  cl.modes[0] = STARPU_RW;
  cl.name = "double_words";

  starpu_task* task = starpu_task_create();
  task->cl = &cl;
  task->handles[0] = h;
  task->synchronous = 1;
  task->destroy = 0;
  ASSERT_EQ(starpu_task_submit(task), 0);

  ASSERT_NE(task->profiling_info, nullptr);
  int worker = task->profiling_info->workerid;
  EXPECT_EQ(starpu_worker_get_type(worker), STARPU_CUDA_WORKER);

  starpu_data_unregister(h);  // brings the data back to main memory
  EXPECT_EQ(v, want);
  starpu_task_destroy(task);
  starpu_shutdown();
}

}  // namespace
