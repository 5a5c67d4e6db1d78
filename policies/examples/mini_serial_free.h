/*
 * mini_serial_free.h: the example policy "mini-serial-free" (a central FIFO,
 * one DEALLOC task at a time; mini_serial_free.c).
 */
#ifndef STARZK_POLICIES_EXAMPLES_MINI_SERIAL_FREE_H
#define STARZK_POLICIES_EXAMPLES_MINI_SERIAL_FREE_H

struct starpu_sched_policy;

#ifdef __cplusplus
extern "C" {
#endif

extern struct starpu_sched_policy mini_serial_free_policy;

#ifdef __cplusplus
}
#endif

#endif /* STARZK_POLICIES_EXAMPLES_MINI_SERIAL_FREE_H */
