// activity.hpp: what the codelet bodies are doing right now, for a person
// watching a long batch. Every body runs inside guarded()
// (partition_state.hpp), which counts it here: per phase and worker kind,
// how many bodies are inside, how many have returned, and when the oldest
// running one started. A CUDA body returns once its kernels are enqueued,
// so "running" there means "being submitted"; a phase that shows no
// running body and no new completions for minutes is waiting on StarPU
// (data, memory, the policy), not computing. The counters are lock-free
// atomics; describe_activity() reads them without stopping anything, and
// the numbers it prints may be a moment apart from one another.
#pragma once

#include <functional>
#include <string>

namespace starzk::codelets {

// Whether the calling thread is a StarPU CUDA worker.
bool on_cuda_worker();

// Called by guarded() around each body (`phase` a string literal).
void activity_begin(const char* phase) noexcept;
void activity_end(const char* phase) noexcept;

// How many times a body has begun or ended so far (a clock of progress),
// and how many are inside now. A CUDA body is inside only while it enqueues.
unsigned long long activity_events() noexcept;
int bodies_running() noexcept;

// One line: "spmv cpu 3 done 1 running (12 s); ntt_h cuda 2 done; ...",
// or "no codelet body has run yet".
std::string describe_activity();

// A note a body has for the person running the program (a fallback taken,
// said once): to stderr as "starzk: <text>" unless a program sets a sink
// (the CLI routes it through its log form, cli/log_lines.hpp).
void report_note(const std::string& text);
void set_note_sink(std::function<void(const std::string&)> sink);

// RAII form for guarded().
class activity_scope_t {
 public:
  explicit activity_scope_t(const char* phase) noexcept : phase_(phase) { activity_begin(phase_); }
  ~activity_scope_t() { activity_end(phase_); }
  activity_scope_t(const activity_scope_t&) = delete;
  activity_scope_t& operator=(const activity_scope_t&) = delete;

 private:
  const char* phase_;
};

}  // namespace starzk::codelets
