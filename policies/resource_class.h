/*
 * resource_class.h: the vocabulary a program uses to tell starzk's
 * scheduling policies what its tasks are. It is the only header codelets
 * and DAG code include from policies/, it is plain C (usable from C and
 * C++), and nothing here needs one of our policies to be loaded: a program
 * that runs under eager or dmda can declare classes all the same, and the
 * trace recorder reads them back whichever policy ran.
 *
 * Design
 * ------
 * 1. A codelet declares its resource class once, after it is built:
 *        starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY);
 *    The class lives in a small lock-free table inside libstarzk_policies
 *    keyed by the codelet's address (codelets are long-lived objects); a
 *    codelet never declared is STARZK_RC_LIGHT. Setting and reading are
 *    thread-safe and cost one hash probe.
 *
 * 2. A task says which chain (partition) and which job it belongs to with a
 *    tag packed into one 64-bit word, kept in a side table inside
 *    libstarzk_policies keyed by the task's address (policies/task_tag.cpp),
 *    not in the task: StarPU's own policies may use task->sched_data (the
 *    userchoice component of modular-heteroprio-heft reads it as a child
 *    index), so starzk leaves that field to whichever policy runs.
 *        starzk_task_set_chain(task, partition_id, is_last);
 *        starzk_task_set_job(task, job_seq);
 *    or, all at once (e.g. after starpu_task_build):
 *        starzk_task_set_tag(task, starzk_tag_make(job_seq, partition_id,
 *                                                   is_last, STARZK_TAG_NO_CLASS));
 *    Tag a task before submitting it. Its tag lasts until the task has
 *    ended: the first reader that sees the task finished (the engine's
 *    post_exec_hook, the trace recorder) retires it, and a task created
 *    later at the same address reads as untagged. So a task submitted again
 *    after it ended (without `regenerate`) is tagged again first, and a
 *    tagged task destroyed without ever running is untagged with
 *    starzk_task_clear_tag (StarPU has no hook on task destruction).
 *    Layout of the word (bit 63 marks a starzk tag, so 0 = untagged):
 *        bit  63      tag marker
 *        bit  62      has chain
 *        bit  61      last task of its chain
 *        bits 58..60  class override + 1 (0 = use the codelet's class)
 *        bits 32..57  job sequence number (26 bits; smaller = older job)
 *        bits  0..31  chain id (the partition id)
 *
 * Rules a DAG must follow for the GPU lock (docs/policies.md):
 *   - `is_last` goes on a task of the chain that depends, directly or not,
 *     on every other task of the chain (the lock is released when it ends);
 *   - a chain's tasks must not wait, directly or through other tasks, on
 *     GPU_CHAIN tasks of another chain, or the lock can deadlock.
 * Job sequence numbers order jobs by age: the policies run the ready task
 * of the oldest job first, so no job starves.
 */
#ifndef STARZK_POLICIES_RESOURCE_CLASS_H
#define STARZK_POLICIES_RESOURCE_CLASS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct starpu_codelet;
struct starpu_task;

/* What a task costs the machine, as the policies see it. */
enum starzk_resource_class {
  STARZK_RC_LIGHT = 0,        /* anything else: no rule applies */
  STARZK_RC_GPU_CHAIN = 1,    /* part of one partition's GPU chain (ntt_h -> msms) */
  STARZK_RC_MEMORY_HEAVY = 2, /* host-memory-bandwidth bound (spmv, prep_msm, CPU b_g2_msm) */
  STARZK_RC_DEALLOC = 3       /* releases big buffers (munmap): serialised */
};
#define STARZK_RC_COUNT 4

/* Printable name ("light", "gpu_chain", "memory_heavy", "dealloc"); NULL if out of range. */
const char* starzk_resource_class_name(enum starzk_resource_class rc);
/* Inverse of starzk_resource_class_name: 0 on success, -1 if the name is unknown. */
int starzk_resource_class_from_name(const char* name, enum starzk_resource_class* rc);

/* Declare a codelet's class. Returns 0, -EINVAL for a NULL codelet or bad
 * class, -ENOSPC when the table (4096 codelets) is full. Re-declaring
 * replaces the class. */
int starzk_codelet_set_class(const struct starpu_codelet* cl, enum starzk_resource_class rc);
/* The class a codelet declared, STARZK_RC_LIGHT if it declared none. */
enum starzk_resource_class starzk_codelet_get_class(const struct starpu_codelet* cl);

/* The class the policies apply to this task: its tag's override, else its
 * codelet's class, else STARZK_RC_LIGHT. */
enum starzk_resource_class starzk_task_get_class(const struct starpu_task* task);

/* ---- task tags (header-only) ------------------------------------------ */

#define STARZK_TAG_MARKER ((uint64_t)1 << 63)
#define STARZK_TAG_HAS_CHAIN ((uint64_t)1 << 62)
#define STARZK_TAG_LAST ((uint64_t)1 << 61)
#define STARZK_TAG_CLASS_SHIFT 58
#define STARZK_TAG_JOB_SHIFT 32
#define STARZK_TAG_JOB_MAX ((uint32_t)((1u << 26) - 1))
#define STARZK_TAG_NO_CLASS (-1)

/* A decoded tag. */
struct starzk_task_tag {
  int has_chain;      /* 1 when the task belongs to a chain */
  int is_last;        /* 1 on the chain's last task */
  int class_override; /* STARZK_TAG_NO_CLASS or an enum starzk_resource_class */
  uint32_t chain;     /* partition id (valid when has_chain) */
  uint32_t job;       /* job sequence number, 0 for untagged tasks */
};

/* Pack a tag for starzk_task_set_tag. `job` is clamped to
 * STARZK_TAG_JOB_MAX; a chain of UINT32_MAX is fine. Pass chain_id < 0 for
 * no chain and class_override = STARZK_TAG_NO_CLASS to keep the codelet's. */
static inline uint64_t starzk_tag_make(uint32_t job, int64_t chain_id, int is_last, int class_override) {
  uint64_t w = STARZK_TAG_MARKER;
  if (job > STARZK_TAG_JOB_MAX) job = STARZK_TAG_JOB_MAX;
  w |= (uint64_t)job << STARZK_TAG_JOB_SHIFT;
  if (chain_id >= 0) {
    w |= STARZK_TAG_HAS_CHAIN | ((uint64_t)chain_id & 0xffffffffu);
    if (is_last) w |= STARZK_TAG_LAST;
  }
  if (class_override >= 0 && class_override < STARZK_RC_COUNT)
    w |= (uint64_t)(class_override + 1) << STARZK_TAG_CLASS_SHIFT;
  return w;
}

/* Decode a tag word; returns 0 when it is not a starzk tag (then *tag is
 * the untagged default: no chain, job 0, no override). */
static inline int starzk_tag_decode(uint64_t w, struct starzk_task_tag* tag) {
  tag->has_chain = 0;
  tag->is_last = 0;
  tag->class_override = STARZK_TAG_NO_CLASS;
  tag->chain = 0;
  tag->job = 0;
  if (!(w & STARZK_TAG_MARKER)) return 0;
  tag->has_chain = (w & STARZK_TAG_HAS_CHAIN) != 0;
  tag->is_last = (w & STARZK_TAG_LAST) != 0;
  tag->class_override = (int)((w >> STARZK_TAG_CLASS_SHIFT) & 7u) - 1;
  tag->chain = (uint32_t)(w & 0xffffffffu);
  tag->job = (uint32_t)((w >> STARZK_TAG_JOB_SHIFT) & STARZK_TAG_JOB_MAX);
  return 1;
}

/* Read a task's tag (see starzk_tag_decode). */
int starzk_task_get_tag(const struct starpu_task* task, struct starzk_task_tag* tag);
/* Put the task in chain `chain` (its partition); is_last marks the task
 * whose end releases the chain's GPU lock. Keeps the job and class. */
void starzk_task_set_chain(struct starpu_task* task, uint32_t chain, int is_last_of_chain);
/* Give the task its job's sequence number (older jobs have smaller ones). */
void starzk_task_set_job(struct starpu_task* task, uint32_t job_seq);
/* Override the codelet's class for this one task. */
void starzk_task_set_class(struct starpu_task* task, enum starzk_resource_class rc);
/* Replace the task's whole tag with a packed word (starzk_tag_make); a word
 * without STARZK_TAG_MARKER (e.g. 0) untags the task. */
void starzk_task_set_tag(struct starpu_task* task, uint64_t tag);
/* Forget the task's tag (for a tagged task destroyed without running). */
void starzk_task_clear_tag(struct starpu_task* task);

#ifdef __cplusplus
}
#endif

#endif /* STARZK_POLICIES_RESOURCE_CLASS_H */
