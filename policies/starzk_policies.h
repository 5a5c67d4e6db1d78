/*
 * starzk_policies.h: the C API of libstarzk_policies, StarPU scheduling
 * policies that encode what Filecoin C2 provers learned the hard way (one
 * GPU lock per device, a host memory-bandwidth interlock, serialised
 * deallocation, oldest-job-first priorities). Any StarPU program can use
 * them:
 *   - StarPU 1.3: starpu_conf.sched_policy = starzk_policy_by_name("starzk");
 *     (or starpu_sched_ctx_create(..., STARPU_SCHED_CTX_POLICY_STRUCT, p, 0));
 *   - StarPU 1.4+: STARPU_SCHED_LIB=libstarzk_policies.so STARPU_SCHED=starzk,
 *     through the two starpu_get_sched_lib_* entry points below (the
 *     library must then be compiled against the 1.4 headers: the policy
 *     struct grew a field).
 * Tasks describe themselves through policies/resource_class.h. The rules
 * and their environment switches are listed in docs/policies.md.
 */
#ifndef STARZK_POLICIES_STARZK_POLICIES_H
#define STARZK_POLICIES_STARZK_POLICIES_H

#include <stddef.h>

#include "policies/resource_class.h"

#ifdef __cplusplus
extern "C" {
#endif

struct starpu_sched_policy;

/* Our policy called `name` (the library's, or one defined or plugged in at
 * run time: starzk_plugin.h), or NULL if there is none. */
struct starpu_sched_policy* starzk_policy_by_name(const char* name);
/* Names of all those policies, NULL-terminated: the library's in a stable
 * order, then the defined and plugged-in ones. Valid until the next policy
 * is defined or plugged in. */
const char* const* starzk_policy_names(void);

/* The rules a running policy instance applies (after environment
 * overrides), for reports and tests. */
struct starzk_policy_config {
  int gpu_lock;       /* one chain per lock domain */
  int gpu_prefetch;   /* stage the next chain on a GPU while memory allows */
  int mem_interlock;  /* cap on concurrent MEMORY_HEAVY tasks on CPU workers */
  int mem_heavy_max;  /* that cap (>= 1) */
  int serial_free;    /* at most one DEALLOC task at a time */
  int l3_spread;      /* spread MEMORY_HEAVY tasks over L3 domains */
  int chain_on_cpu;   /* -1 auto (only when no CUDA worker can run it), 0 never, 1 always */
  int cpu_lock;       /* 1: the CPU workers form one GPU-lock domain too (STARZK_CPU_LOCK) */
  int gpu_first;      /* 1: CPU workers leave work a GPU runs much faster to the GPUs (STARZK_GPU_FIRST) */
  int chain_locality; /* 1: a new chain starts on the GPU that holds its inputs, when one can (STARZK_CHAIN_LOCALITY) */
  int gpu_run_ahead;  /* partitions a GPU works for before their chain starts; 0: no bound (STARZK_GPU_RUN_AHEAD) */
  int chain_stall_ms; /* a chain blocking a lock domain this long with nothing running is reported and released; 0:
                         never (STARZK_CHAIN_STALL_MS) */
};

/* Fill *cfg with the rules the scheduling context runs. Returns 0, or -1
 * when the context does not run one of our policies. */
int starzk_policy_get_config(unsigned sched_ctx_id, struct starzk_policy_config* cfg);

/* Lower the context's GPU run-ahead bound (gpu_run_ahead) to n >= 1, for
 * a program whose device memory holds only n partitions beyond the
 * running chain's (starzk's memory plan, dag/key_residency.hpp). A bound
 * already at or below n, and an unbounded one (0, chosen by the rules or
 * STARZK_GPU_RUN_AHEAD=0), stay. Returns 0, or -1 when the context does
 * not run one of our policies or n < 1. */
int starzk_policy_limit_gpu_run_ahead(unsigned sched_ctx_id, int n);

/* Keep `bytes` of each GPU free beyond the inputs of a chain the policy
 * stages there (gpu_prefetch), for a program whose running chain may still
 * allocate that much device memory outside StarPU's data (a task's
 * scratch): a staged partition must not take it. The largest value asked
 * for holds. Returns 0, or -1 when the context does not run one of our
 * policies. */
int starzk_policy_reserve_gpu_memory(unsigned sched_ctx_id, size_t bytes);

/* The first error a policy reported since the first starzk policy of this
 * StarPU run started: a chain that held a lock domain while nothing could
 * end it (no is_last task, or a chain waiting on another chain; the policy
 * printed the same message, released the domain and let the run go on).
 * Returns 0 when there is none; otherwise -1 and the message in err. A
 * program checks it after starpu_task_wait_for_all and fails. */
int starzk_policies_error(char* err, size_t err_len);

/* Check the STARZK_* environment switches. Returns 0 when they are all
 * valid; otherwise -1 and a message naming the variable in err. A policy
 * that meets a bad value at start-up prints the same message and keeps the
 * default, since StarPU gives init_sched no way to fail. */
int starzk_policies_check_env(char* err, size_t err_len);

/* The default MEMORY_HEAVY cap for a scheduling context: the number of
 * distinct L3 caches holding its CPU workers (else NUMA nodes, else
 * packages), at least 1. Needs StarPU initialised. */
int starzk_policies_default_mem_heavy_max(unsigned sched_ctx_id);

/* StarPU 1.4+ scheduler-library entry points (STARPU_SCHED_LIB). */
struct starpu_sched_policy* starpu_get_sched_lib_policy(const char* name);
struct starpu_sched_policy** starpu_get_sched_lib_policies(void);

#ifdef __cplusplus
}
#endif

#endif /* STARZK_POLICIES_STARZK_POLICIES_H */
