/*
 * minimal_policy.c: a program that plugs the example policy of
 * mini_serial_free.c (one DEALLOC task at a time) into StarPU through
 * starpu_conf.sched_policy, as docs/policies.md shows. It submits DEALLOC
 * and LIGHT tasks and checks, from inside the codelet, that no two DEALLOC
 * bodies overlap. Exit 0 = rule held.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <starpu.h>

#include "policies/examples/mini_serial_free.h"
#include "policies/resource_class.h"

/* ---- a program using it --------------------------------------------------- */

static int frees_running, overlaps;

static void free_body(void* buffers[], void* arg) {
  (void)buffers;
  (void)arg;
  if (STARPU_ATOMIC_ADD(&frees_running, 1) > 1) STARPU_ATOMIC_ADD(&overlaps, 1);
  usleep(2000);
  STARPU_ATOMIC_ADD(&frees_running, -1);
}

static void light_body(void* buffers[], void* arg) {
  (void)buffers;
  (void)arg;
  usleep(500);
}

int main(void) {
  struct starpu_codelet free_cl, light_cl;
  struct starpu_conf conf;
  int i, ret;

  starpu_codelet_init(&free_cl);
  free_cl.cpu_funcs[0] = free_body;
  free_cl.name = "free";
  starpu_codelet_init(&light_cl);
  light_cl.cpu_funcs[0] = light_body;
  light_cl.name = "light";
  starzk_codelet_set_class(&free_cl, STARZK_RC_DEALLOC);

  starpu_conf_init(&conf);
  conf.sched_policy = &mini_serial_free_policy;
  conf.ncuda = 0;
  ret = starpu_init(&conf);
  if (ret == -ENODEV) return 77;
  STARPU_CHECK_RETURN_VALUE(ret, "starpu_init");

  for (i = 0; i < 40; i++) {
    ret = starpu_task_insert(i % 2 ? &free_cl : &light_cl, 0);
    STARPU_CHECK_RETURN_VALUE(ret, "starpu_task_insert");
  }
  starpu_task_wait_for_all();
  starpu_shutdown();

  printf("mini-serial-free: %d overlapping frees\n", overlaps);
  return overlaps == 0 ? 0 : 1;
}
