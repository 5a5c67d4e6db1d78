// engine.hpp: the one central-queue scheduler every starzk policy is an
// instance of. A policy = a name + a rule_set_t of defaults; the engine
// applies the rules that are on (rules.hpp) and leaves the rest to StarPU.
//
// How it schedules (pull model, like StarPU's eager):
//   push     the task joins its class's ordered set (ready_queue.hpp);
//            idle workers that can run it are woken.
//   pop      the calling worker walks the classes and takes the first task
//            it can execute that the rules admit; a CUDA worker takes
//            GPU_CHAIN work before anything else, any other choice goes to
//            the oldest job. The task's resources are booked in the
//            ledger. Placement stays StarPU's: whichever worker (CPU or
//            CUDA, any number of each) asks first and may run it, gets it.
//   post_exec  resources go back; idle workers are woken to look again.
// Tasks StarPU pins to a worker (execute_on_a_specific_worker) bypass pop;
// push_task_notify books them so the counts stay true.
#pragma once

#include <starpu.h>
#include <starpu_scheduler.h>

#include <cstddef>
#include <string>

#include "policies/rules.hpp"

struct starpu_task;
struct starzk_policy_config;

namespace starzk::policies {

// The callbacks a struct starpu_sched_policy points at. init takes the
// policy's default rules; the rest find the engine through the context.
void engine_init(unsigned sched_ctx_id, const rule_set_t& defaults);
void engine_deinit(unsigned sched_ctx_id);
int engine_push(starpu_task* task);
starpu_task* engine_pop(unsigned sched_ctx_id);
void engine_post_exec(starpu_task* task, unsigned sched_ctx_id);
void engine_push_notify(starpu_task* task, int workerid, int perf_workerid, unsigned sched_ctx_id);
void engine_add_workers(unsigned sched_ctx_id, int* workerids, unsigned nworkers);
void engine_remove_workers(unsigned sched_ctx_id, int* workerids, unsigned nworkers);

// A policy built on the engine: only its rule defaults (applied by `init`),
// its name and its description differ.
inline starpu_sched_policy engine_policy(void (*init)(unsigned), const char* name, const char* description) {
  starpu_sched_policy p{};
  p.init_sched = init;
  p.deinit_sched = engine_deinit;
  p.push_task = engine_push;
  p.push_task_notify = engine_push_notify;
  p.pop_task = engine_pop;
  p.post_exec_hook = engine_post_exec;
  p.add_workers = engine_add_workers;
  p.remove_workers = engine_remove_workers;
  p.policy_name = name;
  p.policy_description = description;
  p.worker_type = STARPU_WORKER_LIST;
  return p;
}

// Effective rules of the engine running the context; false (cfg untouched)
// when no engine runs it. The caller checks that the id names a context.
bool engine_config(unsigned sched_ctx_id, starzk_policy_config* cfg);
// engine_t::limit_run_ahead on the context's engine; false when the
// context runs none.
bool engine_limit_run_ahead(unsigned sched_ctx_id, int n);
// engine_t::reserve_gpu_memory likewise.
bool engine_reserve_gpu_memory(unsigned sched_ctx_id, std::size_t bytes);

// The first error an engine reported since the first engine of this StarPU
// run started (a stalled chain, stall.hpp); false when there is none.
bool engine_error(std::string* message);

}  // namespace starzk::policies
