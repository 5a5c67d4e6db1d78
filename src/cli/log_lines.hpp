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
#pragma once

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace starzk::cli {

enum class log_format_t { text, json };

void set_log_format(log_format_t f);
log_format_t log_format();
// "text" or "json"; anything else throws std::invalid_argument naming the option.
log_format_t parse_log_format(const std::string& text);

// One line on `out`, flushed: `text` as it is, or the JSON object above
// (fields merged after t, event and message).
void log_line(FILE* out, const char* event, const std::string& text,
              const nlohmann::json& fields = nlohmann::json::object());

}  // namespace starzk::cli
