// The one error type of the io layer.
//
// Every reader and writer in src/io reports bad input, short files and
// failed system calls by throwing io_error. Its what() is "FILE: problem",
// where FILE is the path the caller passed, so a message printed by the CLI
// always says which of several input files is at fault. It derives from
// std::runtime_error so generic handlers catch it too.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace starzk {

class io_error : public std::runtime_error {
 public:
  io_error(const std::filesystem::path& file, const std::string& problem)
      : std::runtime_error(file.string() + ": " + problem), file_(file), problem_(problem) {}

  const std::filesystem::path& file() const noexcept { return file_; }
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::filesystem::path file_;
  std::string problem_;
};

}  // namespace starzk
