// perfmodel_history.cpp: reading and writing StarPU 1.3's history-based model files
// (see perfmodel_history.hpp for the layout and why the reader is ours).
#include "runtime/perfmodel_history.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "io/atomic_file.hpp"
#include "runtime/perfmodels.hpp"

namespace starzk::runtime {

namespace fs = std::filesystem;

namespace {

// StarPU 1.3's _STARPU_PERFMODEL_VERSION.
constexpr long k_version = 45;
// Bounds far above anything StarPU writes, so that a damaged count cannot
// make the reader loop or allocate without end.
constexpr long k_max_combs = 4096, k_max_devices = 1024, k_max_impls = 64, k_max_coeffs = 4096;
constexpr long k_max_entries = 1 << 24;
constexpr std::uintmax_t k_max_file_bytes = std::uintmax_t(1) << 30;

const char* arch_name(long type) {
  // StarPU's enum starpu_worker_archtype: CPU 0, CUDA 1, OPENCL 2, MIC 3, MPI_MS 5.
  switch (type) {
    case 0:
      return "cpu";
    case 1:
      return "cuda";
    case 2:
      return "opencl";
    case 3:
      return "mic";
    case 5:
      return "mpi_ms";
    default:
      return nullptr;
  }
}

// The file as StarPU's parser sees it: lines, those starting with '#'
// skipped; numbers read one by one across lines (token), or an entry's
// values read as one whole line (line_tokens).
class model_reader_t {
 public:
  model_reader_t(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(file_ + ": line " + std::to_string(line_no_) + ": " + what);
  }

  long integer(const char* what, long lo, long hi) {
    const std::string t = token(what);
    errno = 0;
    char* end = nullptr;
    const long v = std::strtol(t.c_str(), &end, 10);
    if (errno || end == t.c_str() || *end) fail(std::string(what) + ": '" + t + "' is not an integer");
    if (v < lo || v > hi)
      fail(std::string(what) + " " + std::to_string(v) + " is out of range [" + std::to_string(lo) + ", " +
           std::to_string(hi) + "]");
    return v;
  }

  void skip_numbers(long n, const char* what) {
    for (long i = 0; i < n; ++i) {
      const std::string t = token(what);
      char* end = nullptr;
      std::strtod(t.c_str(), &end);  // also takes "nan" and "inf", as StarPU writes them
      if (end == t.c_str() || *end) fail(std::string(what) + ": '" + t + "' is not a number");
    }
  }

  // The next line's values; the previous line must have been used up.
  std::vector<std::string> line_tokens(const char* what) {
    if (!pending_.empty()) fail(std::string("unexpected '") + pending_.front() + "' before " + what);
    if (!next_line()) fail(std::string("the file ends before ") + what);
    std::vector<std::string> v;
    v.swap(pending_);
    return v;
  }

 private:
  bool next_line() {
    std::string line;
    while (std::getline(in_, line)) {
      ++line_no_;
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ss(line);
      std::string t;
      while (ss >> t) pending_.push_back(t);
      if (!pending_.empty()) return true;
    }
    return false;
  }

  std::string token(const char* what) {
    if (pending_.empty() && !next_line()) fail(std::string("the file ends before ") + what);
    std::string t = std::move(pending_.front());
    pending_.erase(pending_.begin());
    return t;
  }

  std::istream& in_;
  std::string file_;
  std::vector<std::string> pending_;
  size_t line_no_ = 0;
};

history_entry_t parse_entry(model_reader_t& r, const std::vector<std::string>& v) {
  // footprint size [flops] mean deviation sum sum2 nsample
  if (v.size() != 8 && v.size() != 7) r.fail("a history entry has " + std::to_string(v.size()) + " values, not 7 or 8");
  history_entry_t e;
  char* end = nullptr;
  errno = 0;
  const unsigned long fp = std::strtoul(v[0].c_str(), &end, 16);
  if (errno || *end || fp > 0xffffffffu) r.fail("footprint '" + v[0] + "' is not a 32-bit hexadecimal number");
  e.footprint = std::uint32_t(fp);
  errno = 0;
  const unsigned long long size = std::strtoull(v[1].c_str(), &end, 10);
  if (errno || *end) r.fail("size '" + v[1] + "' is not an integer");
  e.size = size;
  const size_t mean_at = v.size() == 8 ? 3 : 2;
  e.mean_us = std::strtod(v[mean_at].c_str(), &end);
  if (*end || !(e.mean_us >= 0)) r.fail("mean '" + v[mean_at] + "' is not a non-negative number");
  // StarPU writes "nan" or "-nan" for the deviation of an entry whose
  // samples round to a negative variance: read as no deviation.
  e.dev_us = std::strtod(v[mean_at + 1].c_str(), &end);
  if (*end || !(e.dev_us >= 0)) e.dev_us = 0;
  errno = 0;
  const unsigned long n = std::strtoul(v.back().c_str(), &end, 10);
  if (errno || *end || v.back()[0] == '-' || n > 0xffffffffu) r.fail("sample count '" + v.back() + "' is invalid");
  e.nsample = unsigned(n);
  return e;
}

}  // namespace

std::vector<history_entry_t> read_history_file(const fs::path& file) {
  std::error_code ec;
  const std::uintmax_t bytes = fs::file_size(file, ec);
  if (ec) throw std::runtime_error(file.string() + ": cannot read the performance model: " + ec.message());
  if (bytes > k_max_file_bytes) throw std::runtime_error(file.string() + ": performance model larger than 1 GiB");
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot open the performance model: " + std::strerror(errno));
  model_reader_t r(in, file.string());
  const long version = r.integer("the format version", 0, 1 << 20);
  if (version != k_version)
    r.fail("performance model version " + std::to_string(version) + ", StarPU 1.3 writes version " +
           std::to_string(k_version));
  std::vector<history_entry_t> out;
  const long ncombs = r.integer("the number of architecture combinations", 0, k_max_combs);
  for (long comb = 0; comb < ncombs; ++comb) {
    const long ndevices = r.integer("the number of devices", 1, k_max_devices);
    long type = -1, device = 0;
    for (long d = 0; d < ndevices; ++d) {
      type = r.integer("a device type", 0, 64);
      device = r.integer("a device id", 0, 1 << 20);
      r.integer("a core count", 0, 1 << 20);
    }
    const char* arch = ndevices == 1 ? arch_name(type) : nullptr;  // combined workers: left out
    const long nimpls = r.integer("the number of implementations", 1, k_max_impls);
    for (long impl = 0; impl < nimpls; ++impl) {
      const long nentries = r.integer("the number of entries", 0, k_max_entries);
      r.skip_numbers(9, "the regression parameters");
      r.skip_numbers(3, "the non-linear regression parameters");
      r.skip_numbers(r.integer("the number of coefficients", 0, k_max_coeffs), "a coefficient");
      for (long i = 0; i < nentries; ++i) {
        history_entry_t e = parse_entry(r, r.line_tokens("a history entry"));
        if (!arch) continue;
        e.arch = arch;
        e.device = int(device);
        e.impl = unsigned(impl);
        out.push_back(std::move(e));
      }
    }
  }
  return out;
}

void write_history_file(const fs::path& file, const std::vector<history_entry_t>& entries) {
  std::vector<std::pair<int, std::vector<const history_entry_t*>>> combs;  // StarPU's device type, entries
  for (const history_entry_t& e : entries) {
    if (e.impl != 0) throw std::invalid_argument("write_history_file: only implementation 0 is written");
    const int type = e.arch == "cpu" ? 0 : e.arch == "cuda" ? 1 : -1;
    if (type < 0) throw std::invalid_argument("write_history_file: architecture '" + e.arch + "' is not written");
    auto it = std::find_if(combs.begin(), combs.end(), [&](const auto& c) { return c.first == type; });
    if (it == combs.end()) it = combs.insert(combs.end(), {type, {}});
    it->second.push_back(&e);
  }
  std::ostringstream out;
  out << "##################\n# Performance Model Version\n" << k_version << "\n\n";
  out << "####################\n# COMBs\n# number of combinations\n" << combs.size() << "\n";
  for (std::size_t c = 0; c < combs.size(); ++c) {
    out << "####################\n# COMB_" << c << "\n# number of types devices\n1\n";
    out << "####################\n# DEV_0\n# device type (CPU - 0, CUDA - 1, OPENCL - 2, MIC - 3, MPI_MS - 5)\n"
        << combs[c].first << "\n";
    out << "####################\n# DEV_0\n# device id \n0\n";
    out << "####################\n# DEV_0\n# number of cores \n1\n";
    out << "##########\n# number of implementations\n1\n#####\n";
    out << "# Model for " << arch_name(combs[c].first) << "0_impl0 (Comb" << c << ")\n";
    out << "# number of entries\n" << combs[c].second.size() << "\n";
    out << "# sumlnx\tsumlnx2\t\tsumlny\t\tsumlnxlny\talpha\t\tbeta\t\tn\tminx\t\tmaxx\n";
    out << "0.000000e+00\t0.000000e+00\t0.000000e+00\t0.000000e+00\tnan\tnan\t0\t0\t0\n";
    out << "# a\t\tb\t\tc\nnan\tnan\tnan\n# not multiple-regression-base\n0\n";
    out << "# hash\t\tsize\t\tflops\t\tmean (us)\tdev (us)\tsum\t\tsum2\t\tn\n";
    for (const history_entry_t* e : combs[c].second) {
      const double n = e->nsample;
      char line[256];
      std::snprintf(line, sizeof line, "%08x\t%llu\t%e\t%e\t%e\t%e\t%e\t%u\n", e->footprint,
                    static_cast<unsigned long long>(e->size), 0.0, e->mean_us, e->dev_us, e->mean_us * n,
                    n * (e->dev_us * e->dev_us + e->mean_us * e->mean_us), e->nsample);
      out << line;
    }
    out << "\n";
  }
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  write_file_atomic(file, std::string_view(out.str()));
}

std::vector<history_entry_t> read_history(const std::string& symbol) {
  const fs::path file = perfmodel_codelet_dir() / (symbol + "." + perfmodel_hostname());
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  return read_history_file(file);
}

unsigned calibration_minimum() {
  const char* v = std::getenv("STARPU_CALIBRATE_MINIMUM");
  if (!v) return 10;
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(v, &end, 10);
  if (errno || *end || n < 0 || n > 1000000)
    throw std::runtime_error(std::string("STARPU_CALIBRATE_MINIMUM: '") + v + "' is not a sample count");
  return unsigned(n);
}

}  // namespace starzk::runtime
