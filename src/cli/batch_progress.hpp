// batch_progress.hpp: the progress lines of `starzk prove --manifest`
// (cli/cmd_batch.cpp): a redrawn status line on a terminal, one line per
// finished partition elsewhere, every line in the process's log form
// (cli/log_lines.hpp).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/log_lines.hpp"

namespace starzk::cli {

// Progress on `out` (stdout; stderr with --json, whose stdout holds only
// the summary). On a terminal one line is redrawn; elsewhere (a Slurm log,
// a pipe), or with --log-format json, one line is printed per finished
// partition, unless quiet (cli/log_lines.hpp gives each its form).
class progress_t {
 public:
  progress_t(size_t jobs, size_t partitions, FILE* out, bool quiet)
      : jobs_(jobs),
        parts_(partitions),
        out_(out),
        tty_(isatty(fileno(out)) == 1 && log_format() == log_format_t::text),
        quiet_(quiet) {}
  void update(size_t jobs_done, size_t parts_done, size_t in_flight) {
    if (!tty_ && (quiet_ || parts_done == logged_)) return;
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    const double rate = t > 0 ? double(parts_done) / t : 0;
    char eta[32] = "?";
    if (rate > 0) std::snprintf(eta, sizeof eta, "%.0f s", double(parts_ - parts_done) / rate);
    if (!tty_) {
      logged_ = parts_done;
      char text[256];
      std::snprintf(text, sizeof text,
                    "starzk: progress: partitions %zu/%zu, jobs %zu/%zu, in flight %zu, %.2f proofs/s, "
                    "elapsed %.0f s, ETA %s",
                    parts_done, parts_, jobs_done, jobs_, in_flight, rate, t, eta);
      nlohmann::json f = {
          {"partitions_done", parts_done}, {"partitions", parts_}, {"jobs_done", jobs_done}, {"jobs", jobs_},
          {"in_flight", in_flight},        {"proofs_per_s", rate}, {"elapsed_s", t}};
      if (rate > 0) f["eta_s"] = double(parts_ - parts_done) / rate;
      log_line(out_, "progress", text, f);
      return;
    }
    std::fprintf(out_, "\r\033[Kjobs %zu/%zu  partitions %zu/%zu  in flight %zu  %.2f proofs/s  ETA %s", jobs_done,
                 jobs_, parts_done, parts_, in_flight, rate, eta);
    std::fflush(out_);
    drawn_ = true;
  }
  // Prints a line above the progress line.
  void line(const std::string& s, const char* event = "message",
            const nlohmann::json& fields = nlohmann::json::object()) {
    if (drawn_) std::fprintf(out_, "\r\033[K");
    log_line(out_, event, s, fields);
  }
  // An error: on stderr (the progress line is cleared first so that the
  // two do not share a terminal line).
  void error(const std::string& s, const nlohmann::json& fields = nlohmann::json::object()) {
    if (drawn_) {
      std::fprintf(out_, "\r\033[K");
      std::fflush(out_);
    }
    log_line(stderr, "error", s, fields);
  }
  void finish() {
    if (drawn_) std::fprintf(out_, "\r\033[K");
    std::fflush(out_);
  }

 private:
  size_t jobs_, parts_;
  FILE* out_;
  bool tty_, quiet_;
  bool drawn_ = false;
  size_t logged_ = 0;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

}  // namespace starzk::cli
