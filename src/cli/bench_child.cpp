// bench_child.cpp: run_child (bench_child.hpp): fork, exec bench-one, wait
// with the deadline, read the result it wrote.
#include "cli/bench_child.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace starzk::cli {

namespace fs = std::filesystem;

bench_result_t run_child(const bench_config_t& cfg, const fs::path& result_file, unsigned timeout_s) {
  std::vector<std::string> args = {"starzk",        "bench-one",
                                   "--log2",        std::to_string(cfg.log2),
                                   "--policy",      cfg.policy,
                                   "--concurrency", std::to_string(cfg.concurrency),
                                   "--partitions",  std::to_string(cfg.partitions),
                                   "--jobs",        std::to_string(cfg.jobs),
                                   "--ncpu",        std::to_string(cfg.ncpu),
                                   "--ngpu",        std::to_string(cfg.ngpu),
                                   "--inputs",      cfg.inputs.string(),
                                   "--result",      result_file.string()};
  if (!cfg.trace.empty()) args.insert(args.end(), {"--trace", cfg.trace.string()});
  if (cfg.baseline) args.push_back("--baseline");
  if (timeout_s) args.insert(args.end(), {"--deadline", std::to_string(timeout_s)});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  fs::remove(result_file);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("bench: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    execv("/proc/self/exe", argv.data());
    std::fprintf(stderr, "bench: cannot run /proc/self/exe: %s\n", std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage ru{};
  bool timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s + k_bench_kill_grace_s);
  for (;;) {
    const pid_t got = wait4(pid, &status, timeout_s ? WNOHANG : 0, &ru);
    if (got == pid) break;
    if (got < 0 && errno != EINTR)
      throw std::runtime_error(std::string("bench: wait4 failed: ") + std::strerror(errno));
    if (got == 0) {  // still running (WNOHANG)
      if (!timed_out && std::chrono::steady_clock::now() >= deadline) {
        timed_out = true;
        kill(pid, SIGKILL);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(timed_out ? 10 : 200));
    }
  }

  bench_result_t r;
  std::ifstream f(result_file);
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (f && !j.is_discarded()) {
    r = bench_result_from_json(j);
  } else {
    r.config = cfg;
    r.error = timed_out ? "the run did not stop within " + std::to_string(timeout_s + k_bench_kill_grace_s) +
                              " s (--run-timeout + " + std::to_string(k_bench_kill_grace_s) + ") and was killed"
              : WIFSIGNALED(status)
                  ? "the run was killed by signal " + std::to_string(WTERMSIG(status))
                  : "the run exited with status " + std::to_string(WEXITSTATUS(status)) + " and left no result";
  }
  r.config.inputs = cfg.inputs;
  r.config.trace = cfg.trace;
  if (r.peak_rss_kib == 0) r.peak_rss_kib = uint64_t(ru.ru_maxrss);
  if (r.error.empty() && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
    r.error = "the run exited abnormally (status " + std::to_string(status) + ")";
  return r;
}

}  // namespace starzk::cli
