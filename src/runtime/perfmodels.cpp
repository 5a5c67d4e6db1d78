// perfmodels.cpp: installing calibrated performance models (see perfmodels.hpp).
#include "runtime/perfmodels.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <system_error>

#include "runtime/perfmodel_history.hpp"

namespace starzk::runtime {

namespace fs = std::filesystem;

namespace {

// The layout version of StarPU 1.3's history files (_STARPU_PERFMODEL_VERSION).
constexpr const char* k_model_version = "45";

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// True where a history file StarPU wrote records no measurement: its
// "number of combinations" (architectures measured) is 0. StarPU writes such
// a file at shutdown for every model a run loaded, measured or not, so an
// empty one is not something this host learned. A file that cannot be read
// this way counts as measured and is kept.
bool measured_nothing(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  bool next_is_count = false;
  while (std::getline(in, line)) {
    if (line.find("number of combinations") != std::string::npos) {
      next_is_count = true;
      continue;
    }
    if (!next_is_count || line.empty() || line[0] == '#') continue;
    return line.find_first_not_of("0 \t\r") == std::string::npos;
  }
  return false;
}

// Merges the shipped model `from` into this host's `target`, which measured
// something: each shipped entry (architecture, device, implementation,
// footprint) the host lacks is added, and a host entry short of StarPU's
// calibration minimum gives way to a shipped one that is not (StarPU would
// measure it again anyway). The host's other entries stay as they are
// (rewritten from their mean, deviation and samples: the flops column,
// which StarPU only reports, becomes 0). Returns the entries added or
// replaced. A file either reader refuses, or
// one holding entries the writer cannot write again (another device,
// implementation or architecture than cpu0/cuda0 impl 0), is left as it is.
size_t merge_model(const fs::path& from, const fs::path& target) {
  std::vector<history_entry_t> mine, theirs;
  try {
    mine = read_history_file(target);
    theirs = read_history_file(from);
  } catch (const std::runtime_error&) {
    return 0;
  }
  const auto writable = [](const history_entry_t& e) {
    return e.impl == 0 && e.device == 0 && (e.arch == "cpu" || e.arch == "cuda");
  };
  if (!std::all_of(mine.begin(), mine.end(), writable)) return 0;
  const unsigned minimum = calibration_minimum();
  size_t changed = 0;
  for (const history_entry_t& s : theirs) {
    if (!writable(s)) continue;
    const auto it = std::find_if(mine.begin(), mine.end(), [&](const history_entry_t& m) {
      return m.arch == s.arch && m.footprint == s.footprint;
    });
    if (it == mine.end()) {
      mine.push_back(s);
      ++changed;
    } else if (it->nsample < minimum && s.nsample >= minimum) {
      *it = s;
      ++changed;
    }
  }
  if (changed > 0) write_history_file(target, mine);
  return changed;
}

}  // namespace

fs::path perfmodel_codelet_dir() {
  fs::path base;
  if (const std::string d = env("STARPU_PERF_MODEL_DIR"); !d.empty()) {
    base = d;
  } else {
    std::string home = env("STARPU_HOME");
    if (home.empty()) home = env("HOME");
    base = fs::path(home) / ".starpu" / "sampling";
  }
  return base / "codelets" / k_model_version;
}

std::string perfmodel_hostname() {
  if (const std::string h = env("STARPU_HOSTNAME"); !h.empty()) return h;
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  std::string h(buf);
  if (const size_t dot = h.find('.'); dot != std::string::npos) h.resize(dot);
  return h;
}

size_t seed_perfmodels(const fs::path& from) {
  std::error_code ec;
  fs::path src = from / "codelets" / k_model_version;
  if (!fs::is_directory(src, ec)) src = from;
  if (!fs::is_directory(src, ec)) throw std::runtime_error(from.string() + ": no such performance-model folder");
  const fs::path dst = perfmodel_codelet_dir();
  fs::create_directories(dst, ec);
  if (ec) throw std::runtime_error(dst.string() + ": cannot create: " + ec.message());
  const std::string host = perfmodel_hostname();
  std::set<std::string> done;
  size_t copied = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(src)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    const size_t dot = name.find('.');
    if (dot == std::string::npos || dot == 0) continue;
    const std::string symbol = name.substr(0, dot);
    if (done.count(symbol)) continue;  // one source per symbol
    done.insert(symbol);
    const fs::path target = dst / (symbol + "." + host);
    // What this host learned stays; it gains what it has not measured
    // enough. A file that measured nothing learned nothing.
    if (fs::exists(target, ec) && !measured_nothing(target)) {
      if (merge_model(e.path(), target) > 0) ++copied;
      continue;
    }
    const fs::path tmp = dst / (symbol + "." + host + ".tmp" + std::to_string(getpid()));
    fs::copy_file(e.path(), tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(tmp, target, ec);
    if (ec) {
      fs::remove(tmp);
      throw std::runtime_error(target.string() + ": cannot install the model from " + e.path().string() + ": " +
                               ec.message());
    }
    ++copied;
  }
  return copied;
}

}  // namespace starzk::runtime
