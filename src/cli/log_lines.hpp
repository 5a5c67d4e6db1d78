// log_lines.hpp: the lines starzk writes while it works (key loading,
// progress, what a quiet batch waits for, errors, the final summary), in one
// of two forms for the whole process:
//   text  (default) the line as a person reads it: "starzk: progress: ...";
//   json  (--log-format json) one JSON object per line, for log collectors:
//         {"t": 12.5, "event": "progress", "message": "<the text line>",
//          ...the event's fields}, t in seconds since the first line of
//         the process. Events: "key", "unpack", "plan", "progress", "job",
//         "waiting", "signal", "note", "error", "summary", "message".
// The stream does not change with the form: progress on stdout (stderr
// with --json), errors on stderr. docs/usage.md lists each event's fields.
//
// And at one of three levels for the whole process (--quiet, --verbose on
// every command; option_checks.hpp registers them):
//   quiet    only the lines a monitor must see: events "error", "warning",
//            "signal" and "summary"; the others are dropped here, so no
//            caller tests the level;
//   normal   every line;
//   verbose  every line, and the lines written with log_verbose (the
//            settings in force at the start, more detail where a command
//            has it).
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace starzk::cli {

enum class log_format_t { text, json };
enum class verbosity_t { quiet, normal, verbose };

void set_log_format(log_format_t f);
log_format_t log_format();
// "text" or "json"; anything else throws std::invalid_argument naming the option.
log_format_t parse_log_format(const std::string& text);

void set_verbosity(verbosity_t v);
verbosity_t verbosity();

// One line on `out`, flushed: `text` as it is, or the JSON object above
// (fields merged after t, event and message); nothing under --quiet unless
// the event is one a monitor must see (above).
void log_line(FILE* out, const char* event, const std::string& text,
              const nlohmann::json& fields = nlohmann::json::object());
// The same, only under --verbose.
void log_verbose(FILE* out, const char* event, const std::string& text,
                 const nlohmann::json& fields = nlohmann::json::object());

}  // namespace starzk::cli
