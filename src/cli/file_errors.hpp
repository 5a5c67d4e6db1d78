// Every error about an input names its file: the one place that makes sure.
//
// docs/usage.md promises one line "starzk: FILE: problem" for a bad input.
// The readers of src/io throw io_error "FILE: problem" themselves, but what
// runs between a command and its files may not know them: the filesystem
// library (std::filesystem_error), the parsers behind a reader (a trace, a
// manifest), the prover's checks, which see a key, a circuit and a witness
// but no file names, and the readers' checks of one file against another
// ("has 3 values, the key expects 4": which key?). So a command runs every
// read, and every step that combines its inputs, through naming(): what
// escapes is rethrown, once, as an error that names the files:
//
//   - an io_error keeps its text (it names its file);
//   - any other error becomes io_error(FILE, its text) (exit status 3), FILE
//     the input it is about (the first given), not repeated when the text
//     already starts with it; a filesystem_error gives its reason alone;
//   - a prove_error (the answer is no, status 1) gets the path of the input
//     it is about in front, the message unchanged;
//   - std::bad_alloc becomes resource_error "FILE: out of memory" (status 4);
//   - usage errors (std::invalid_argument), exit_status and resource_error
//     pass unchanged: they are about options, not files;
//   - and whatever the message, an input it speaks of by its role but not
//     by name ("the key", "the circuit") is named after it:
//     "w.wtns: witness does not satisfy constraint 3 of the circuit
//     (circuit: c.r1cs)".
// A step that only combines inputs already read (the prover) goes through
// naming_refusal(): there only prove_error and io_error are named, and
// anything else (StarPU failing to start) passes unchanged. with_inputs()
// is the last rule alone, for messages that travel as text (a batch
// partition's error).
#pragma once

#include <initializer_list>
#include <span>
#include <string>
#include <utility>

namespace starzk::cli {

// A file a command reads and the role it plays there: "key", "circuit",
// "witness", "proof", "public inputs", "manifest", "trace", or "" for the
// only file of a command. An empty path is an input not given (skipped).
struct input_file_t {
  std::string path;
  const char* role = "";
};

// `message` with " (ROLE: PATH; ...)" appended for every input of `files`
// it speaks of by role but does not name. Unchanged if there is none.
std::string with_inputs(std::string message, std::span<const input_file_t> files);

// Called inside a catch block: rethrows the exception being handled as
// described above. `files` are the step's inputs; the first is the one an
// error is about when it does not say (prove_error does). With
// `only_refusals`, anything but prove_error and io_error is rethrown as is.
[[noreturn]] void rethrow_naming(std::span<const input_file_t> files, bool only_refusals = false);

template <class F>
decltype(auto) naming(std::initializer_list<input_file_t> files, F&& step) {
  try {
    return std::forward<F>(step)();
  } catch (...) {
    rethrow_naming(std::span<const input_file_t>(files.begin(), files.size()));
  }
}

template <class F>
decltype(auto) naming_refusal(std::initializer_list<input_file_t> files, F&& step) {
  try {
    return std::forward<F>(step)();
  } catch (...) {
    rethrow_naming(std::span<const input_file_t>(files.begin(), files.size()), true);
  }
}

template <class F>
decltype(auto) naming(const std::string& path, F&& step) {
  return naming({input_file_t{path, ""}}, std::forward<F>(step));
}

}  // namespace starzk::cli
