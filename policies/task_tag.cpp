// task_tag.cpp: where task tags (job, chain, is_last, class override; the
// word layout is in resource_class.h) live at run time.
//
// Not in the task: task->sched_data belongs to whichever policy runs
// (StarPU's userchoice component, used by modular-heteroprio-heft, reads it
// as the index of the scheduler a task goes to, and aborts on anything
// else), and starpu_task has no other field free for the application. So
// the tags sit in a side table keyed by the task's address: 64 shards, each
// a mutex and a hash map, so workers reading tags of different tasks rarely
// meet on one lock.
//
// Lifetime. StarPU has no hook on task destruction, and a new task may be
// created at the address of a destroyed one. A tag therefore *retires*
// once the task has ended: the first read that sees the task FINISHED
// (StarPU sets that before post_exec_hook and the callback, which is where
// the engine and the trace recorder read it) marks the entry; readers that
// still see the task FINISHED get the tag, and a read that sees the address
// holding a task in any other state (a new task, not yet run) drops the
// entry and answers "untagged". A regenerated task keeps its tag (StarPU
// submits it again by itself). Entries are keyed by address, so the table
// holds at most one entry per address ever tagged: it grows with the peak
// number of live tagged tasks, not with the number of tasks run.

#include <starpu.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "policies/resource_class.h"

namespace {

struct tag_entry_t {
  std::uint64_t word = 0;
  bool retired = false;  // the task was seen finished
};

struct shard_t {
  std::mutex mu;
  std::unordered_map<const starpu_task*, tag_entry_t> tags;
};

constexpr std::size_t k_shards = 64;  // power of two

std::array<shard_t, k_shards>& shards() {
  static std::array<shard_t, k_shards> s;
  return s;
}

// Fibonacci hashing of the address (Knuth, TAOCP vol. 3, 6.4), as for the
// codelet table in task_class.cpp.
shard_t& shard_of(const starpu_task* task) {
  auto x = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(task));
  return shards()[static_cast<std::size_t>((x * 0x9E3779B97F4A7C15ull) >> 58) & (k_shards - 1)];
}

bool ended(const starpu_task* task) { return task->status == STARPU_TASK_FINISHED; }

// The task's tag word, 0 when untagged; retires or drops the entry as the
// task's state says (see the top of the file). Caller holds the shard.
std::uint64_t read_locked(shard_t& s, const starpu_task* task) {
  auto it = s.tags.find(task);
  if (it == s.tags.end()) return 0;
  if (it->second.retired && !ended(task)) {
    s.tags.erase(it);  // a new task at a recycled address
    return 0;
  }
  if (ended(task) && !task->regenerate) it->second.retired = true;
  return it->second.word;
}

std::uint64_t read(const starpu_task* task) {
  if (!task) return 0;
  shard_t& s = shard_of(task);
  std::lock_guard<std::mutex> lk(s.mu);
  return read_locked(s, task);
}

// Apply `edit` to the task's current word (0 if none), starting from a bare
// marker; store the result as a live tag.
template <class F>
void update(starpu_task* task, F edit) {
  if (!task) return;
  shard_t& s = shard_of(task);
  std::lock_guard<std::mutex> lk(s.mu);
  std::uint64_t w = read_locked(s, task);
  if (!(w & STARZK_TAG_MARKER)) w = STARZK_TAG_MARKER;
  w = edit(w);
  s.tags[task] = tag_entry_t{w, false};
}

}  // namespace

extern "C" {

enum starzk_resource_class starzk_task_get_class(const struct starpu_task* task) {
  if (!task) return STARZK_RC_LIGHT;
  starzk_task_tag tag;
  if (starzk_tag_decode(read(task), &tag) && tag.class_override >= 0)
    return static_cast<starzk_resource_class>(tag.class_override);
  return starzk_codelet_get_class(task->cl);
}

int starzk_task_get_tag(const struct starpu_task* task, struct starzk_task_tag* tag) {
  return starzk_tag_decode(read(task), tag);
}

void starzk_task_set_chain(struct starpu_task* task, uint32_t chain, int is_last_of_chain) {
  update(task, [&](std::uint64_t w) {
    w &= ~(STARZK_TAG_LAST | 0xffffffffull);
    w |= STARZK_TAG_HAS_CHAIN | chain;
    if (is_last_of_chain) w |= STARZK_TAG_LAST;
    return w;
  });
}

void starzk_task_set_job(struct starpu_task* task, uint32_t job_seq) {
  if (job_seq > STARZK_TAG_JOB_MAX) job_seq = STARZK_TAG_JOB_MAX;
  update(task, [&](std::uint64_t w) {
    w &= ~(static_cast<std::uint64_t>(STARZK_TAG_JOB_MAX) << STARZK_TAG_JOB_SHIFT);
    return w | static_cast<std::uint64_t>(job_seq) << STARZK_TAG_JOB_SHIFT;
  });
}

void starzk_task_set_class(struct starpu_task* task, enum starzk_resource_class rc) {
  update(task, [&](std::uint64_t w) {
    w &= ~(7ull << STARZK_TAG_CLASS_SHIFT);
    int i = static_cast<int>(rc);
    if (i >= 0 && i < STARZK_RC_COUNT) w |= static_cast<std::uint64_t>(i + 1) << STARZK_TAG_CLASS_SHIFT;
    return w;
  });
}

void starzk_task_set_tag(struct starpu_task* task, uint64_t tag) {
  if (!(tag & STARZK_TAG_MARKER)) {
    starzk_task_clear_tag(task);
    return;
  }
  update(task, [&](std::uint64_t) { return tag; });
}

void starzk_task_clear_tag(struct starpu_task* task) {
  if (!task) return;
  shard_t& s = shard_of(task);
  std::lock_guard<std::mutex> lk(s.mu);
  s.tags.erase(task);
}

}  // extern "C"
