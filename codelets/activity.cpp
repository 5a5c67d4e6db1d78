// activity.cpp: the per-phase body counters (see activity.hpp). A fixed
// table of slots, one per (phase, worker kind) pair, claimed on first use
// under a mutex and read without one; a phase is found by comparing its
// name, so the same literal from two translation units lands in one slot.
#include "codelets/activity.hpp"

#include <starpu.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace starzk::codelets {

namespace {

constexpr int max_slots = 32;

struct slot_t {
  std::atomic<const char*> phase{nullptr};
  bool cuda = false;
  std::atomic<int> running{0};
  std::atomic<unsigned long long> done{0};
  std::atomic<long long> oldest_start_ms{0};  // start of a body still running; 0: none
};

slot_t g_slots[max_slots];
std::atomic<int> g_used{0};
std::mutex g_claim;

long long now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

slot_t* find(const char* phase, bool cuda) {
  const int used = g_used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i) {
    const char* p = g_slots[i].phase.load(std::memory_order_acquire);
    if (p && g_slots[i].cuda == cuda && std::strcmp(p, phase) == 0) return &g_slots[i];
  }
  return nullptr;
}

slot_t* slot(const char* phase, bool cuda) {
  if (slot_t* s = find(phase, cuda)) return s;
  std::lock_guard lock(g_claim);
  if (slot_t* s = find(phase, cuda)) return s;
  const int used = g_used.load(std::memory_order_relaxed);
  if (used == max_slots) return nullptr;  // more phases than slots: not counted
  slot_t& s = g_slots[used];
  s.cuda = cuda;
  s.phase.store(phase, std::memory_order_release);
  g_used.store(used + 1, std::memory_order_release);
  return &s;
}

}  // namespace

bool on_cuda_worker() {
  const int w = starpu_worker_get_id();
  return w >= 0 && starpu_worker_get_type(w) == STARPU_CUDA_WORKER;
}

namespace {
std::atomic<unsigned long long> g_events{0};
std::atomic<int> g_running{0};
}  // namespace

unsigned long long activity_events() noexcept { return g_events.load(std::memory_order_acquire); }
int bodies_running() noexcept { return g_running.load(std::memory_order_acquire); }

void activity_begin(const char* phase) noexcept {
  g_running.fetch_add(1, std::memory_order_acq_rel);
  g_events.fetch_add(1, std::memory_order_acq_rel);
  slot_t* s = slot(phase, on_cuda_worker());
  if (s == nullptr) return;
  if (s->running.fetch_add(1, std::memory_order_acq_rel) == 0) s->oldest_start_ms.store(now_ms());
}

void activity_end(const char* phase) noexcept {
  g_events.fetch_add(1, std::memory_order_acq_rel);
  g_running.fetch_sub(1, std::memory_order_acq_rel);
  slot_t* s = find(phase, on_cuda_worker());
  if (s == nullptr) return;
  s->done.fetch_add(1, std::memory_order_relaxed);
  // With several bodies running the oldest start is not tracked exactly:
  // it stays until the last one returns.
  if (s->running.fetch_sub(1, std::memory_order_acq_rel) == 1) s->oldest_start_ms.store(0);
}

namespace {
std::mutex g_sink_mu;
std::function<void(const std::string&)> g_sink;
}  // namespace

void set_note_sink(std::function<void(const std::string&)> sink) {
  std::lock_guard lock(g_sink_mu);
  g_sink = std::move(sink);
}

void report_note(const std::string& text) {
  std::lock_guard lock(g_sink_mu);
  if (g_sink) {
    g_sink(text);
    return;
  }
  std::fprintf(stderr, "starzk: %s\n", text.c_str());
  std::fflush(stderr);
}

std::string describe_activity() {
  std::string out;
  const long long now = now_ms();
  const int used = g_used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i) {
    const slot_t& s = g_slots[i];
    const char* phase = s.phase.load(std::memory_order_acquire);
    if (phase == nullptr) continue;
    char item[160];
    int len = std::snprintf(item, sizeof item, "%s%s %s %llu done", out.empty() ? "" : "; ", phase,
                            s.cuda ? "cuda" : "cpu", s.done.load(std::memory_order_relaxed));
    const int running = s.running.load(std::memory_order_relaxed);
    const long long since = s.oldest_start_ms.load(std::memory_order_relaxed);
    if (running > 0 && len > 0 && size_t(len) < sizeof item)
      std::snprintf(item + len, sizeof item - size_t(len), " %d running (%.0f s)", running,
                    since ? double(now - since) / 1000.0 : 0.0);
    out += item;
  }
  return out.empty() ? "no codelet body has run yet" : out;
}

}  // namespace starzk::codelets
