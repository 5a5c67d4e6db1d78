// Errors rethrown naming their files; see file_errors.hpp.
#include "cli/file_errors.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <vector>

#include "cli/commands.hpp"
#include "groth16/prover.hpp"
#include "io/io_error.hpp"

namespace starzk::cli {

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` occurs in `text` as a whole word (not inside "keys" or "circuits").
bool has_word(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool left = at == 0 || !word_char(text[at - 1]);
    const bool right = at + word.size() == text.size() || !word_char(text[at + word.size()]);
    if (left && right) return true;
  }
  return false;
}

// The file is named in `text`: its path, or its name alone (a batch's
// labels name witnesses and keys by file name).
bool named_in(const std::string& text, const std::string& path) {
  if (text.find(path) != std::string::npos) return true;
  const std::string name = std::filesystem::path(path).filename().string();
  return !name.empty() && text.find(name) != std::string::npos;
}

// " (ROLE: PATH; ...)" for the inputs `text` speaks of by role only.
std::string unnamed_inputs(const std::string& text, std::span<const input_file_t> files) {
  // The roles are looked for outside the paths ("circuit.zkey" is a key).
  std::string words = text;
  for (const input_file_t& f : files)
    for (const std::string& p : {f.path, std::filesystem::path(f.path).filename().string()})
      if (!p.empty())
        for (size_t at = words.find(p); at != std::string::npos; at = words.find(p, at))
          words.replace(at, p.size(), std::string(p.size(), ' '));
  std::string out;
  std::vector<std::string> named;
  for (const input_file_t& f : files) {
    if (f.path.empty() || *f.role == '\0' || named_in(text, f.path)) continue;
    if (!has_word(words, f.role) || std::find(named.begin(), named.end(), f.path) != named.end()) continue;
    named.push_back(f.path);
    out += std::string(out.empty() ? " (" : "; ") + f.role + ": " + f.path;
  }
  return out.empty() ? out : out + ")";
}

const input_file_t& first_given(std::span<const input_file_t> files) {
  for (const input_file_t& f : files)
    if (!f.path.empty()) return f;
  return files.front();
}

// The input whose path starts `text` ("FILE: ..." or "FILE:3:1: ..."), or null.
const input_file_t* named_first(const std::string& text, std::span<const input_file_t> files) {
  for (const input_file_t& f : files)
    if (!f.path.empty() && starts_with(text, f.path + ":")) return &f;
  return nullptr;
}

// io_error(FILE, problem) from a message about `subject` that may start with
// its path already (a reader's runtime_error "FILE: trace: ...").
[[noreturn]] void throw_about(const input_file_t& subject, const std::string& text,
                              std::span<const input_file_t> files) {
  const std::string more = unnamed_inputs(text, files);
  if (const input_file_t* f = named_first(text, files)) {
    std::string rest = text.substr(f->path.size() + 1);
    if (starts_with(rest, " ")) rest.erase(0, 1);
    throw io_error(f->path, rest + more);
  }
  throw io_error(subject.path, text + more);
}

// "cannot get file size: Operation not supported" from libstdc++'s
// "filesystem error: cannot get file size: Operation not supported [PATH]".
std::string filesystem_reason(const std::filesystem::filesystem_error& e) {
  std::string s = e.what();
  if (starts_with(s, "filesystem error: ")) s.erase(0, 18);
  for (const auto* p : {&e.path2(), &e.path1()})
    if (!p->empty() && ends_with(s, " [" + p->string() + "]")) s.resize(s.size() - p->string().size() - 3);
  return s;
}

const char* role_of(prove_input_t about) {
  switch (about) {
    case prove_input_t::key:
      return "key";
    case prove_input_t::circuit:
      return "circuit";
    case prove_input_t::witness:
      return "witness";
  }
  return "";
}

}  // namespace

std::string with_inputs(std::string message, std::span<const input_file_t> files) {
  return message + unnamed_inputs(message, files);
}

void rethrow_naming(std::span<const input_file_t> files, bool only_refusals) {
  const input_file_t& first = first_given(files);
  try {
    throw;
  } catch (const exit_status&) {
    throw;
  } catch (const resource_error&) {
    throw;
  } catch (const io_error& e) {
    const std::string more = unnamed_inputs(e.what(), files);
    if (more.empty()) throw;
    throw io_error(e.file(), e.problem() + more);
  } catch (const prove_error& e) {
    const std::string text = e.what();
    const input_file_t* subject = &first;
    for (const input_file_t& f : files)
      if (!f.path.empty() && std::string(f.role) == role_of(e.about)) subject = &f;
    const std::string named = named_first(text, files) ? text : subject->path + ": " + text;
    throw prove_error(with_inputs(named, files), e.about);
  } catch (...) {
    if (only_refusals) throw;
  }
  // Anything else escaped a read: the file is bad (or unreadable).
  try {
    throw;
  } catch (const std::filesystem::filesystem_error& e) {
    const input_file_t* subject = &first;
    for (const input_file_t& f : files)
      if (!f.path.empty() && std::filesystem::path(f.path) == e.path1()) subject = &f;
    throw io_error(subject->path, filesystem_reason(e));
  } catch (const std::bad_alloc&) {
    throw resource_error(first.path + ": out of memory");
  } catch (const std::invalid_argument&) {
    throw;  // usage: an option, not a file
  } catch (const std::exception& e) {
    throw_about(first, e.what(), files);
  }
}

}  // namespace starzk::cli
