/*
 * mini_serial_free.c: the smallest useful StarPU policy that reads starzk's
 * resource classes (docs/policies.md walks through it): one central FIFO
 * with one rule, at most one DEALLOC task runs at a time. It books the slot
 * when a worker pops the task and gives it back in post_exec_hook, so the
 * rule holds over the task's whole execution. (It assumes no task is
 * pinned to a worker with execute_on_a_specific_worker; starzk's engine
 * also handles those.) minimal_policy.c plugs it into a program through
 * starpu_conf; plugin_example.c ships it in a plug-in.
 */
#include <stdlib.h>

#include <starpu.h>
#include <starpu_scheduler.h>

#include "policies/examples/mini_serial_free.h"
#include "policies/resource_class.h"

struct mini_data {
  struct starpu_task_list ready;
  starpu_pthread_mutex_t mutex;
  int dealloc_running;
};

static void mini_init(unsigned ctx) {
  struct mini_data* d = malloc(sizeof(*d));
  starpu_task_list_init(&d->ready);
  STARPU_PTHREAD_MUTEX_INIT(&d->mutex, NULL);
  d->dealloc_running = 0;
  starpu_sched_ctx_set_policy_data(ctx, d);
}

static void mini_deinit(unsigned ctx) {
  struct mini_data* d = starpu_sched_ctx_get_policy_data(ctx);
  STARPU_PTHREAD_MUTEX_DESTROY(&d->mutex);
  free(d);
}

static int mini_push(struct starpu_task* task) {
  struct mini_data* d = starpu_sched_ctx_get_policy_data(task->sched_ctx);
  STARPU_PTHREAD_MUTEX_LOCK(&d->mutex);
  starpu_task_list_push_back(&d->ready, task);
  starpu_push_task_end(task);
  STARPU_PTHREAD_MUTEX_UNLOCK(&d->mutex);
  return 0; /* workers poll (non-blocking drivers); see engine.cpp for wake-ups */
}

static struct starpu_task* mini_pop(unsigned ctx) {
  struct mini_data* d = starpu_sched_ctx_get_policy_data(ctx);
  unsigned worker = starpu_worker_get_id_check();
  struct starpu_task *t, *found = NULL;
  STARPU_PTHREAD_MUTEX_LOCK(&d->mutex);
  for (t = starpu_task_list_begin(&d->ready); t != starpu_task_list_end(&d->ready); t = starpu_task_list_next(t)) {
    unsigned nimpl;
    int is_free = starzk_task_get_class(t) == STARZK_RC_DEALLOC;
    if (!starpu_worker_can_execute_task_first_impl(worker, t, &nimpl)) continue;
    if (is_free && d->dealloc_running > 0) continue; /* the rule: wait for the running free to end */
    starpu_task_list_erase(&d->ready, t);
    starpu_task_set_implementation(t, nimpl);
    d->dealloc_running += is_free;
    found = t;
    break;
  }
  STARPU_PTHREAD_MUTEX_UNLOCK(&d->mutex);
  return found;
}

static void mini_post_exec(struct starpu_task* task, unsigned ctx) {
  struct mini_data* d = starpu_sched_ctx_get_policy_data(ctx);
  if (starzk_task_get_class(task) != STARZK_RC_DEALLOC) return;
  STARPU_PTHREAD_MUTEX_LOCK(&d->mutex);
  d->dealloc_running--;
  STARPU_PTHREAD_MUTEX_UNLOCK(&d->mutex);
}

struct starpu_sched_policy mini_serial_free_policy = {
    .init_sched = mini_init,
    .deinit_sched = mini_deinit,
    .push_task = mini_push,
    .pop_task = mini_pop,
    .post_exec_hook = mini_post_exec,
    .policy_name = "mini-serial-free",
    .policy_description = "central FIFO, one DEALLOC task at a time",
    .worker_type = STARPU_WORKER_LIST,
};
