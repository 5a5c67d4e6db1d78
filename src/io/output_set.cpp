// Output files made visible together; see output_set.hpp for the design.
#include "io/output_set.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <utility>
#include <set>
#include <stdexcept>
#include <string>

#include "io/io_error.hpp"

namespace starzk {

namespace {

std::filesystem::path folder_of(const std::filesystem::path& p) {
  std::filesystem::path d = p.parent_path();
  return d.empty() ? std::filesystem::path(".") : d;
}

// Exclusive flocks on a set of folders, taken in sorted order (so two
// writers never wait on each other in a cycle), released by the destructor.
class folder_locks_t {
 public:
  explicit folder_locks_t(const std::vector<std::filesystem::path>& members) {
    std::set<std::string> folders;
    for (const auto& m : members) {
      std::error_code ec;
      const auto canon = std::filesystem::weakly_canonical(folder_of(m), ec);
      folders.insert(ec ? folder_of(m).string() : canon.string());
    }
    for (const std::string& f : folders) {
      const int fd = ::open(f.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0) throw io_error(f, std::string("cannot open the output folder: ") + std::strerror(errno));
      fds_.push_back(fd);
      while (::flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) throw io_error(f, std::string("cannot lock the output folder: ") + std::strerror(errno));
      }
    }
  }
  ~folder_locks_t() {
    for (int fd : fds_) {
      ::fsync(fd);  // the renames and removals made durable
      ::close(fd);  // closing drops the flock
    }
  }
  folder_locks_t(const folder_locks_t&) = delete;
  folder_locks_t& operator=(const folder_locks_t&) = delete;

 private:
  std::vector<int> fds_;
};

// Removes `p` if it exists as a file; throws io_error on any other
// failure. A device, FIFO or socket named as an output (--trace /dev/null)
// is never removed: it is written in place (atomic_file_t).
bool remove_member(const std::filesystem::path& p) {
  struct stat st {};
  if (::lstat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return false;
  if (::unlink(p.c_str()) == 0) return true;
  // Absent, or under a path component that is no folder: nothing to remove
  // (making the folder will say what is wrong with it).
  if (errno == ENOENT || errno == ENOTDIR) return false;
  throw io_error(p, std::string("cannot remove the previous output: ") + std::strerror(errno));
}

}  // namespace

output_set_t::output_set_t(std::vector<std::filesystem::path> members) {
  if (members.empty()) throw std::invalid_argument("output_set_t: no members");
  files_.reserve(members.size());
  for (auto& m : members) files_.push_back(std::make_unique<atomic_file_t>(m));
}

output_set_t::~output_set_t() = default;  // each atomic_file_t removes its temporary

void output_set_t::commit() {
  for (auto& f : files_) f->finish();  // 1. stage
  std::vector<std::filesystem::path> targets;
  for (auto& f : files_) targets.push_back(f->target());
  folder_locks_t locks(targets);        // 2. lock
  remove_output_set(targets);           // 3. retire, the mark first
  for (auto& f : files_) f->publish();  // 4. publish, the mark last
}

size_t clean_output_set(std::span<const std::filesystem::path> members) {
  size_t removed = 0;
  for (const auto& m : members) removed += remove_stale_temporaries(m);
  if (members.empty()) return removed;
  std::error_code ec;
  if (std::filesystem::exists(members.back(), ec)) return removed;
  for (const auto& m : members) removed += remove_member(m) ? 1 : 0;
  return removed;
}

size_t remove_output_set(std::span<const std::filesystem::path> members) {
  size_t removed = 0;
  for (size_t i = members.size(); i-- > 0;) removed += remove_member(members[i]) ? 1 : 0;
  return removed;
}

void check_outputs_apart(std::span<const named_path_t> inputs, std::span<const named_path_t> outputs) {
  std::map<std::string, const named_path_t*> by_name;
  std::map<std::pair<dev_t, ino_t>, const named_path_t*> by_inode;
  // Registers p; returns the earlier entry that is the same file, if any.
  auto add = [&](const named_path_t& p) -> const named_path_t* {
    std::error_code ec;
    std::filesystem::path canon = std::filesystem::weakly_canonical(std::filesystem::absolute(p.path), ec);
    if (ec) canon = p.path.lexically_normal();
    auto [it, fresh] = by_name.emplace(canon.string(), &p);
    if (!fresh) return it->second;
    struct stat st {};
    if (::stat(p.path.c_str(), &st) == 0) {
      auto [jt, fresh_inode] = by_inode.emplace(std::make_pair(st.st_dev, st.st_ino), &p);
      if (!fresh_inode) return jt->second;
    }
    return nullptr;
  };
  for (const named_path_t& in : inputs) (void)add(in);  // inputs may repeat (one key for two jobs)
  for (const named_path_t& out : outputs) {
    // A device or FIFO (/dev/null for outputs one does not keep) is written
    // in place and may take several outputs; an input it cannot be.
    struct stat st {};
    if (::stat(out.path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) continue;
    if (const named_path_t* other = add(out)) {
      const bool input = std::any_of(inputs.begin(), inputs.end(), [&](const named_path_t& x) { return &x == other; });
      throw io_error(out.path,
                     out.what + " is the same file as " + other->what + " '" + other->path.string() + "'" +
                         (input ? ": an output may not overwrite an input" : ": two outputs may not share a file"));
    }
  }
}

}  // namespace starzk
