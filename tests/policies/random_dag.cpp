// random_dag.cpp: build and run the random graphs of random_dag.hpp.

#include "random_dag.hpp"

#include <cstdlib>
#include <starpu.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>
#include <thread>

#include "policies/resource_class.h"
#include "runtime/starpu_session.hpp"

namespace starzk::test {

namespace {

constexpr std::size_t k_buffer_bytes = 4096;
constexpr int k_max_data_deps = 4;  // + the task's own buffer <= STARPU_NMAXBUFS

// Sleep for the task's duration, then write the task's own buffer (the last
// one) from the sum of the buffers it reads.
void body(void* buffers[], void* arg) {
  auto duration = reinterpret_cast<std::uintptr_t>(arg);
  std::this_thread::sleep_for(std::chrono::microseconds(duration));
  unsigned n = static_cast<unsigned>(starpu_task_get_current()->cl->nbuffers);
  unsigned char sum = 0;
  for (unsigned i = 0; i + 1 < n; ++i) {
    auto* p = reinterpret_cast<unsigned char*>(STARPU_VECTOR_GET_PTR(buffers[i]));
    for (std::size_t k = 0; k < k_buffer_bytes; k += 64) sum = static_cast<unsigned char>(sum + p[k]);
  }
  auto* own = reinterpret_cast<unsigned char*>(STARPU_VECTOR_GET_PTR(buffers[n - 1]));
  std::memset(own, sum + 1, k_buffer_bytes);
}

// The "CUDA" body: runs on the CUDA worker's host thread and only waits.
void cuda_body(void*[], void* arg) {
  std::this_thread::sleep_for(std::chrono::microseconds(reinterpret_cast<std::uintptr_t>(arg)));
}

// One codelet per (class, number of buffers): StarPU codelets fix nbuffers.
struct codelets_t {
  starpu_codelet cl[STARZK_RC_COUNT][k_max_data_deps + 1];
  explicit codelets_t(bool cuda) {
    static const char* names[STARZK_RC_COUNT] = {"light", "gpu_chain", "memory_heavy", "dealloc"};
    for (int rc = 0; rc < STARZK_RC_COUNT; ++rc)
      for (int reads = 0; reads <= k_max_data_deps; ++reads) {
        starpu_codelet& c = cl[rc][reads];
        starpu_codelet_init(&c);
        c.cpu_funcs[0] = body;
        if (cuda && rc == STARZK_RC_GPU_CHAIN) {
          c.cuda_funcs[0] = cuda_body;
          c.cuda_flags[0] = 0;
        }
        c.nbuffers = reads + 1;
        for (int i = 0; i < reads; ++i) c.modes[i] = STARPU_R;
        c.modes[reads] = STARPU_W;
        c.name = names[rc];
        starzk_codelet_set_class(&c, static_cast<starzk_resource_class>(rc));
      }
  }
};

codelets_t& codelets(bool cuda) {
  static codelets_t cpu_only(false), with_cuda(true);
  return cuda ? with_cuda : cpu_only;
}

}  // namespace

starpu_codelet* chain_codelet(int reads, bool cuda) { return &codelets(cuda).cl[STARZK_RC_GPU_CHAIN][reads]; }

std::vector<task_spec_t> make_random_dag(std::uint64_t seed, const dag_shape_t& s) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto coin = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  std::vector<task_spec_t> dag;
  std::vector<int> pre_pool;  // tasks with no chain ancestor
  auto add = [&](task_spec_t t, const std::vector<int>& deps) {
    for (int d : deps)
      if (std::find(t.data_deps.begin(), t.data_deps.end(), d) == t.data_deps.end() &&
          std::find(t.explicit_deps.begin(), t.explicit_deps.end(), d) == t.explicit_deps.end()) {
        if (coin(0.5) && static_cast<int>(t.data_deps.size()) < k_max_data_deps)
          t.data_deps.push_back(d);
        else
          t.explicit_deps.push_back(d);
      }
    t.duration_us = uniform(s.min_us, s.max_us);
    t.priority = s.priorities ? uniform(0, 3) : 0;
    dag.push_back(t);
    return static_cast<int>(dag.size()) - 1;
  };
  auto some_of = [&](const std::vector<int>& pool, int max_n) {
    std::vector<int> out;
    for (int k = uniform(0, max_n); k > 0 && !pool.empty(); --k)
      out.push_back(pool[uniform(0, static_cast<int>(pool.size()) - 1)]);
    return out;
  };
  int partition = 0;
  for (int job = 0; job < s.jobs; ++job) {
    for (int p = 0; p < s.partitions_per_job; ++p, ++partition) {
      std::vector<int> pre;
      for (int k = 0; k < s.pre_per_partition; ++k) {
        task_spec_t t;
        t.rc = coin(0.6) ? STARZK_RC_MEMORY_HEAVY : STARZK_RC_LIGHT;
        t.job = static_cast<std::uint32_t>(job);
        int id = add(t, some_of(pre_pool, 2));
        pre.push_back(id);
        pre_pool.push_back(id);
      }
      std::vector<int> chain;
      for (int k = 0; k < s.chain_len; ++k) {
        task_spec_t t;
        t.rc = STARZK_RC_GPU_CHAIN;
        t.job = static_cast<std::uint32_t>(job);
        t.chain = partition;
        std::vector<int> deps = some_of(pre, 2);
        if (k == s.chain_len - 1) {
          t.last = true;
          deps.insert(deps.end(), chain.begin(), chain.end());
        } else if (!chain.empty())
          deps.push_back(coin(0.7) ? chain.back() : chain[uniform(0, static_cast<int>(chain.size()) - 1)]);
        chain.push_back(add(t, deps));
      }
      for (int k = 0; k < s.post_per_partition; ++k) {
        task_spec_t t;
        t.rc = k % 2 == 0 ? STARZK_RC_DEALLOC : STARZK_RC_LIGHT;
        t.job = static_cast<std::uint32_t>(job);
        add(t, {chain.back()});
      }
    }
    for (int k = 0; k < s.extra_per_job; ++k) {
      task_spec_t t;
      t.rc = coin(0.5) ? STARZK_RC_MEMORY_HEAVY : (coin(0.3) ? STARZK_RC_DEALLOC : STARZK_RC_LIGHT);
      t.job = static_cast<std::uint32_t>(job);
      int id = add(t, some_of(pre_pool, 1));
      if (t.rc != STARZK_RC_DEALLOC) pre_pool.push_back(id);
    }
  }
  return dag;
}

std::vector<task_spec_t> make_wide_memory_dag(int count, int duration_us) {
  std::vector<task_spec_t> dag(static_cast<std::size_t>(count));
  for (auto& t : dag) {
    t.rc = STARZK_RC_MEMORY_HEAVY;
    t.duration_us = duration_us;
  }
  return dag;
}

std::vector<task_spec_t> make_parallel_chains_dag() {
  std::vector<task_spec_t> dag;
  for (int chain = 0; chain < 4; ++chain) {
    std::vector<int> members;
    for (int k = 0; k < 6; ++k) {
      task_spec_t t;
      t.rc = STARZK_RC_GPU_CHAIN;
      t.chain = chain;
      t.duration_us = 2000;
      if (k == 5) {
        t.last = true;
        t.explicit_deps = members;
      }
      dag.push_back(t);
      members.push_back(static_cast<int>(dag.size()) - 1);
    }
  }
  return dag;
}

void run_dag(const std::vector<task_spec_t>& dag, runtime::trace_recorder& recorder, bool gpu_chain_on_cuda) {
  codelets_t& cls = codelets(gpu_chain_on_cuda);
  std::vector<std::vector<unsigned char>> buffers(dag.size(), std::vector<unsigned char>(k_buffer_bytes, 0));
  std::vector<starpu_data_handle_t> handles(dag.size());
  for (std::size_t i = 0; i < dag.size(); ++i)
    starpu_vector_data_register(&handles[i], STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(buffers[i].data()),
                                k_buffer_bytes, 1);
  std::vector<starpu_task*> tasks(dag.size());
  for (std::size_t i = 0; i < dag.size(); ++i) {
    const task_spec_t& s = dag[i];
    starpu_task* t = starpu_task_create();
    t->destroy = 0;  // later tasks may declare a dependency on it after it ended
    t->cl = &cls.cl[s.rc][s.data_deps.size()];
    t->cl_arg = reinterpret_cast<void*>(static_cast<std::uintptr_t>(s.duration_us));
    t->priority = s.priority;
    std::size_t b = 0;
    for (int d : s.data_deps) t->handles[b++] = handles[static_cast<std::size_t>(d)];
    t->handles[b] = handles[i];
    starzk_task_set_job(t, s.job);
    if (s.chain >= 0) starzk_task_set_chain(t, static_cast<std::uint32_t>(s.chain), s.last);
    if (!s.explicit_deps.empty()) {
      std::vector<starpu_task*> deps;
      for (int d : s.explicit_deps) deps.push_back(tasks[static_cast<std::size_t>(d)]);
      starpu_task_declare_deps_array(t, static_cast<unsigned>(deps.size()), deps.data());
    }
    tasks[i] = t;
    recorder.submit(t);
  }
  runtime::check_starpu(starpu_task_wait_for_all(), "starpu_task_wait_for_all");
  for (starpu_task* t : tasks) starpu_task_destroy(t);
  for (auto h : handles) starpu_data_unregister(h);
}

}  // namespace starzk::test
