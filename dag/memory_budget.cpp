// memory_budget.cpp: see memory_budget.hpp.
#include "dag/memory_budget.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace starzk::dag {

memory_budget_t::memory_budget_t(uint64_t cap) : cap_(cap) {}

uint64_t memory_budget_t::cap() const {
  std::lock_guard<std::mutex> lk(mu_);
  return cap_;
}

void memory_budget_t::set_cap(uint64_t cap) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    cap_ = cap;
  }
  cv_.notify_all();
}

void memory_budget_t::reserve(uint64_t bytes, uint64_t held, const std::function<void()>& on_wait) {
  std::unique_lock<std::mutex> lk(mu_);
  if (!fits(bytes, held)) {
    ++waits_;
    const uint64_t id = next_wait_++;
    waiting_[id] = {bytes, held};
    if (on_wait) {
      lk.unlock();
      try {
        on_wait();
      } catch (...) {
        lk.lock();
        waiting_.erase(id);
        throw;
      }
      lk.lock();
    }
    cv_.wait(lk, [&] { return fits(bytes, held); });
    waiting_.erase(id);
  }
  in_use_ += bytes;
  if (in_use_ > peak_) peak_ = in_use_;
}

bool memory_budget_t::try_reserve(uint64_t bytes, uint64_t held) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!fits(bytes, held)) return false;
  in_use_ += bytes;
  if (in_use_ > peak_) peak_ = in_use_;
  return true;
}

bool memory_budget_t::waiting_fit_once_returned(const std::function<uint64_t()>& returning) const {
  std::lock_guard<std::mutex> lk(mu_);
  if (waiting_.empty()) return true;
  const uint64_t back = returning();
  const uint64_t in_use = in_use_ > back ? in_use_ - back : 0;
  for (const auto& [id, w] : waiting_)
    if (!fits_at(in_use, w.first, w.second)) return false;
  return true;
}

void memory_budget_t::release(uint64_t bytes) noexcept {
  {
    std::lock_guard<std::mutex> lk(mu_);
    in_use_ = bytes > in_use_ ? 0 : in_use_ - bytes;
  }
  cv_.notify_all();
}

uint64_t memory_budget_t::in_use() const {
  std::lock_guard<std::mutex> lk(mu_);
  return in_use_;
}

uint64_t memory_budget_t::peak() const {
  std::lock_guard<std::mutex> lk(mu_);
  return peak_;
}

uint64_t memory_budget_t::waits() const {
  std::lock_guard<std::mutex> lk(mu_);
  return waits_;
}

uint64_t mem_available_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string line;
  while (f && std::getline(f, line)) {
    std::istringstream in(line);
    std::string key, unit;
    uint64_t kib = 0;
    if (in >> key >> kib >> unit && key == "MemAvailable:") return kib * 1024;
  }
  throw std::runtime_error("cannot read MemAvailable from /proc/meminfo: give --mem-budget BYTES");
}

uint64_t default_memory_budget(double fraction) { return uint64_t(double(mem_available_bytes()) * fraction); }

uint64_t parse_byte_size(std::string_view text, const std::string& what) {
  const std::string t(text);
  size_t pos = 0;
  double value = 0;
  try {
    value = std::stod(t, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  if (pos == 0 || !(value >= 0) || std::isinf(value))
    throw std::runtime_error(what + "'" + t + "': expected bytes like 512M or 1.5G");
  std::string suffix = t.substr(pos);
  for (char& ch : suffix) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  double scale = 1;
  if (suffix.empty() || suffix == "B")
    scale = 1;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB")
    scale = 1024.0;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB")
    scale = 1024.0 * 1024;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB")
    scale = 1024.0 * 1024 * 1024;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    throw std::runtime_error(what + "'" + t + "': unknown unit '" + t.substr(pos) + "' (use K, M, G or T)");
  const double bytes = value * scale;
  if (bytes >= 18e18) throw std::runtime_error(what + "'" + t + "' is too large");
  return uint64_t(bytes);
}

uint64_t parse_memory_budget(std::string_view text) {
  if (text == "auto") return default_memory_budget();
  if (text == "none") return 0;
  return parse_byte_size(text, "memory budget (auto, none or bytes) ");
}

}  // namespace starzk::dag
