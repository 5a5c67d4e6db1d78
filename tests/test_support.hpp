// What the tests of every layer share that belongs to no layer: a whole
// small file read or written as text (expected outputs, logs a child
// wrote, markers, models), and an environment variable set for one scope.
//
// A file that cannot be opened reads as empty, so a test's expectation on
// its content fails with the content shown, rather than the helper throwing
// before the assertion can say which file. The scoped variable puts back
// what was there before (or unsets it), so a test leaves the process as it
// found it for the tests after it in the same binary.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

namespace starzk::test {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_text(const std::filesystem::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// Sets `name` to `value` (unsets it for a null value) until the end of the
// scope, then restores the value it had.
class scoped_env_t {
 public:
  scoped_env_t(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  scoped_env_t(const char* name, const std::string& value) : scoped_env_t(name, value.c_str()) {}
  ~scoped_env_t() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  scoped_env_t(const scoped_env_t&) = delete;
  scoped_env_t& operator=(const scoped_env_t&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace starzk::test
