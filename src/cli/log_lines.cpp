// log_lines.cpp: the text or JSON form of starzk's log lines (see
// log_lines.hpp). One mutex keeps lines from several threads (the batch
// watch, the key loaders, the main loop) whole.
#include "cli/log_lines.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace starzk::cli {

namespace {

std::atomic<log_format_t> g_format{log_format_t::text};
std::atomic<verbosity_t> g_verbosity{verbosity_t::normal};
std::mutex g_mu;

double seconds_since_start() {
  static const auto t0 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void set_log_format(log_format_t f) {
  seconds_since_start();  // t counts from here at the latest
  g_format.store(f);
}

log_format_t log_format() { return g_format.load(); }

log_format_t parse_log_format(const std::string& text) {
  if (text == "text") return log_format_t::text;
  if (text == "json") return log_format_t::json;
  throw std::invalid_argument("--log-format '" + text + "': expected text or json");
}

void set_verbosity(verbosity_t v) { g_verbosity.store(v); }
verbosity_t verbosity() { return g_verbosity.load(); }

void log_line(FILE* out, const char* event, const std::string& text, const nlohmann::json& fields) {
  if (verbosity() == verbosity_t::quiet) {
    bool must = false;
    for (const char* e : {"error", "warning", "signal", "summary"}) must = must || std::strcmp(event, e) == 0;
    if (!must) return;
  }
  std::string line;
  if (log_format() == log_format_t::json) {
    nlohmann::json j = {
        {"t", std::round(seconds_since_start() * 1000.0) / 1000.0}, {"event", event}, {"message", text}};
    if (fields.is_object())
      for (auto it = fields.begin(); it != fields.end(); ++it) j[it.key()] = it.value();
    // Invalid UTF-8 in a message (a file name) is replaced, never thrown.
    line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } else {
    line = text;
  }
  std::lock_guard lock(g_mu);
  std::fprintf(out, "%s\n", line.c_str());
  std::fflush(out);
}

void log_verbose(FILE* out, const char* event, const std::string& text, const nlohmann::json& fields) {
  if (verbosity() == verbosity_t::verbose) log_line(out, event, text, fields);
}

}  // namespace starzk::cli
