// batch_watch.cpp: the quiet-batch and stop-signal watch (see
// batch_watch.hpp).
#include "cli/batch_watch.hpp"

#include <starpu.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

#include "cli/log_lines.hpp"
#include "codelets/activity.hpp"
#include "util/config.hpp"

namespace starzk::cli {

namespace {

long long now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

std::string host_rss() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) {
      const double kib = std::strtod(line.c_str() + 6, nullptr);
      char b[48];
      std::snprintf(b, sizeof b, "host RSS %.1f GiB", kib / (1024.0 * 1024.0));
      return b;
    }
  return "host RSS unknown";
}

std::string device_memory() {
  std::string out;
  const unsigned nodes = starpu_memory_nodes_get_count();
  for (unsigned node = 0; node < nodes; ++node) {
    if (starpu_node_get_kind(node) != STARPU_CUDA_RAM) continue;
    const starpu_ssize_t total = starpu_memory_get_total(node), avail = starpu_memory_get_available(node);
    if (total <= 0 || avail < 0) continue;
    char b[96];
    std::snprintf(b, sizeof b, "%smemory node %u: %.2f of %.2f GiB in use", out.empty() ? "" : ", ", node,
                  double(total - avail) / double(1ull << 30), double(total) / double(1ull << 30));
    out += b;
  }
  return out;
}

}  // namespace

double watch_quiet_seconds() { return config::get_seconds("STARZK_WATCH_S").value_or(60); }
double stall_abort_seconds() { return config::get_seconds("STARZK_STALL_ABORT_S").value_or(1800); }

std::string batch_watch_t::describe_state(bool runtime) {
  std::string s = codelets::describe_activity();
  if (const std::string d = runtime ? device_memory() : std::string(); !d.empty()) s += "; " + d;
  return s + "; " + host_rss();
}

batch_watch_t::batch_watch_t(double quiet, FILE* out, std::function<void()> on_stop, double abort_after)
    : quiet_(quiet), abort_after_(abort_after), out_(out), on_stop_(std::move(on_stop)), last_ms_(now_ms()) {
  sigemptyset(&taken_);
  sigaddset(&taken_, SIGTERM);
  sigaddset(&taken_, SIGINT);
  sigaddset(&taken_, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &taken_, &old_mask_);
  thread_ = std::thread([this] { run(); });
}

batch_watch_t::~batch_watch_t() {
  stop_.store(true);
  thread_.join();
  // A signal that came after the watch stopped is still pending: with the
  // old mask back it ends the process as it would have without the watch.
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

void batch_watch_t::progressed() noexcept { last_ms_.store(now_ms()); }

void batch_watch_t::run() {
  const long long t0 = now_ms();
  long long spoke_ms = 0;
  unsigned long long events = codelets::activity_events();
  long long moved_ms = t0;  // when a body last began or ended, or one was seen running
  while (!stop_.load()) {
    timespec tick{0, 250'000'000};
    const int sig = sigtimedwait(&taken_, nullptr, &tick);
    if (sig == SIGUSR1) {
      if (stop_requested_.load()) continue;  // asked already (a launcher may pass it on twice)
      char head[128];
      std::snprintf(head, sizeof head,
                    "starzk: SIGUSR1 after %.0f s: submitting no more partitions, finishing those in flight: ",
                    double(now_ms() - t0) / 1000.0);
      log_line(out_, "signal", head + describe_state(runtime_.load()), {{"signal", "SIGUSR1"}});
      stop_requested_.store(true);
      continue;
    }
    if (sig == SIGTERM || sig == SIGINT) {
      const char* name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
      char head[64];
      std::snprintf(head, sizeof head, "starzk: %s after %.0f s: ", name, double(now_ms() - t0) / 1000.0);
      log_line(out_, "signal", head + describe_state(runtime_.load()), {{"signal", name}});
      try {
        if (on_stop_) on_stop_();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "starzk: while stopping: %s\n", e.what());
      }
      std::fflush(nullptr);
      signal(sig, SIG_DFL);
      pthread_sigmask(SIG_UNBLOCK, &taken_, nullptr);
      raise(sig);  // delivered to this thread, whose mask now lets it through
      std::_Exit(128 + sig);
    }
    if (abort_after_ > 0) {
      const unsigned long long e = codelets::activity_events();
      const long long now = now_ms();
      if (!stall_check_.load() || e != events || codelets::bodies_running() > 0) {
        events = e;
        moved_ms = now;
      } else if (e > 0 && double(now - moved_ms) >= abort_after_ * 1000.0) {
        char head[160];
        std::snprintf(head, sizeof head,
                      "starzk: the batch has stalled: no codelet body ran, began or ended for %.0f s "
                      "(STARZK_STALL_ABORT_S); giving up, a rerun proves what is missing: ",
                      double(now - moved_ms) / 1000.0);
        log_line(out_, "stalled", head + describe_state(runtime_.load()), {{"stalled_s", (now - moved_ms) / 1000.0}});
        try {
          if (on_stop_) on_stop_();
        } catch (const std::exception& ex) {
          std::fprintf(stderr, "starzk: while stopping: %s\n", ex.what());
        }
        std::fflush(nullptr);
        std::_Exit(4);  // StarPU cannot be shut down with tasks that will never run
      }
    }
    if (quiet_ <= 0) continue;
    const long long now = now_ms(), last = last_ms_.load();
    const long long since = std::max(last, spoke_ms);
    if (double(now - since) >= quiet_ * 1000.0) {
      spoke_ms = now;
      char head[96];
      std::snprintf(head, sizeof head,
                    "starzk: no partition finished for %.0f s (elapsed %.0f s): ", double(now - last) / 1000.0,
                    double(now - t0) / 1000.0);
      log_line(out_, "waiting", head + describe_state(runtime_.load()), {{"quiet_s", double(now - last) / 1000.0}});
    }
  }
}

}  // namespace starzk::cli
