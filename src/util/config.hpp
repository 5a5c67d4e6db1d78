// config.hpp: starzk's environment variables, in one table with one
// grammar per kind of value.
//
// Every STARZK_* variable the program or its policies read is a row here:
// its name, the kind of value, the default, and what it does. The typed
// readers below are how the program's layers read them, so a value means
// the same wherever it is read, and a bad one is refused with a message
// naming the variable. `starzk info --config` prints the table with the
// value in force and where it came from; check_environment() refuses a bad
// value of any variable at start (before the minutes a key can take) and
// names STARZK_* variables that are no row (a typo reads as unset).
//
// Grammars: switch 1/on/true/yes or 0/off/false/no (any case, as the
// policies' rules read them); count a decimal integer in the row's range;
// seconds a decimal number ≥ 0; choice one of the row's words; text any
// non-empty string, the reader parses it (bytes like 512M, a query list, a
// path). An empty value is unset. The policy rules (kind "policy": read by
// libstarzk_policies itself, which any StarPU program can load, with the
// same switch and count grammars) are rows too, for the listing and the
// start check.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>  // environ

namespace starzk::config {

enum class kind_t { switch_, count, seconds, choice, text };

struct var_t {
  const char* name;
  kind_t kind;
  const char* fallback;  // what applies when unset (words, for the listing)
  const char* choices;   // choice: the words, comma-separated; count: "lo..hi"
  const char* doc;
};

inline constexpr std::array<var_t, 38> vars = {{
    // The program (src/, dag/, codelets/).
    {"STARZK_WATCH_S", kind_t::seconds, "60", "",
     "seconds without a finished partition before prove --manifest says what it waits for (0: never)"},
    {"STARZK_STALL_ABORT_S", kind_t::seconds, "1800", "",
     "seconds with no codelet body running, beginning or ending before prove --manifest gives up on a stalled "
     "batch, exit status 4 (0: never)"},
    {"STARZK_VALIDATED_KEYS", kind_t::text, "$XDG_CACHE_HOME/starzk/validated-keys", "",
     "folder of the key validation records, or off"},
    {"STARZK_SETUP_DEVICE", kind_t::choice, "auto", "auto,on,off",
     "starzk bench: where its development keys are set up"},
    {"STARZK_PREP_TASK", kind_t::switch_, "auto (a task where the split MSMs run on CPUs)", "",
     "a prep_msm task per partition or none"},
    {"STARZK_PIN_WITNESS", kind_t::switch_, "on with CUDA workers", "",
     "page-lock witness buffers for copies to the GPUs"},
    {"STARZK_PIN_KEY", kind_t::choice, "streamed", "streamed,all,0,off",
     "which key arrays are page-locked for the GPUs"},
    {"STARZK_MEM_TASK_THREADS", kind_t::count, "CPU workers / the interlock cap", "1..4096",
     "threads of one memory-bound CPU task"},
    {"STARZK_LOADERS", kind_t::count, "cores / 4, 2 to 8", "0..64", "threads reading witnesses in the background"},
    {"STARZK_READ_AHEAD", kind_t::switch_, "on", "",
     "prove --manifest: read the next witness file into the page cache while its partition waits for memory"},
    {"STARZK_KEY_STREAM", kind_t::text, "auto", "",
     "key queries streamed from host memory: auto, none, all, or h,l,a,b_g1,b_g2"},
    {"STARZK_GPU_SCRATCH_MAX", kind_t::text, "none", "", "bytes of device scratch one MSM body may take (512M, 2G)"},
    {"STARZK_ROWS_ON_DEVICE", kind_t::switch_, "on", "",
     "where a GPU holds w, a, b, c but not the CSR beside them, the witness map writes a, b, c on the GPU (off: into "
     "host memory)"},
    {"STARZK_MSM_STREAM_PIECE", kind_t::text, "768M", "",
     "bytes of bases one piece of a streamed MSM of mostly 0/1 scalars copies at most (0 or none: no cap)"},
    {"STARZK_H_PASSES_VECTORS", kind_t::count, "2", "1..2",
     "device vectors the H phase in passes may take: 2 where the device has room for them (half the copies), or 1"},
    {"STARZK_H_PASSES_A_ON_DEVICE", kind_t::switch_, "on", "",
     "where the H phase runs in passes, a stays on the device from the witness map to msm_h (a and h never cross "
     "PCIe; off: a and h go through host memory)"},
    {"STARZK_MSM_TOGETHER", kind_t::choice, "off", "auto,on,off",
     "a partition's four G1 MSMs as one task (msm_g1), L, A and B_g1 on a second stream beside H, so that their "
     "copies run while H computes; auto: where the memory plan streams all four"},
    {"STARZK_MSM_PAIRS", kind_t::choice, "auto", "auto,on,b_g2,off",
     "two partitions of a batch share one task per witness MSM (b_g2_msm; with on, msm_l, msm_a and msm_b1 too), "
     "which stages each piece of the bases once for both; auto: those whose queries the memory plan streams"},
    {"STARZK_MSM_PROFILE", kind_t::switch_, "off", "",
     "on: every MSM on a GPU times its phases and says on stderr where its time went (a diagnostic: each MSM then "
     "waits for its stream once per piece)"},
    {"STARZK_MSM_SHARED_BUCKETS", kind_t::switch_, "on", "",
     "the pieces of an MSM on a GPU add their buckets into one set and reduce it once (off: each piece reduces its "
     "own, an A/B knob)"},
    {"STARZK_MSM_REGROUP", kind_t::switch_, "on", "",
     "a dense MSM on a GPU that does not fit whole takes the pieces and windows per digit group with the fewest "
     "passes over its terms (off: the fewest pieces, one window per group, an A/B knob)"},
    {"STARZK_MSM_PIECE_WAIT", kind_t::switch_, "off", "",
     "on: every MSM on a GPU in pieces waits for its stream after each piece, as a profiled one does, without "
     "timing it (an A/B knob)"},
    {"STARZK_FF_PORTABLE", kind_t::switch_, "off (mulx/ADX where the CPU has it)", "",
     "portable field products instead of mulx/ADX, and no AVX-512 IFMA"},
    {"STARZK_FF_IFMA", kind_t::switch_, "on where the CPU has AVX-512 IFMA", "",
     "subgroup checks and G1 MSM bucket additions eight at a time on AVX-512 IFMA (off: one at a time)"},
    {"STARZK_CALIBRATED_MODELS", kind_t::text, "none", "", "a folder of performance models to start StarPU with"},
    {"STARZK_POLICY_PLUGIN", kind_t::text, "none", "", "policy plug-ins to load (a.so:b.so)"},
    // The policy rules (policies/rules.cpp reads them; docs/policies.md).
    {"STARZK_GPU_LOCK", kind_t::switch_, "on", "", "one GPU chain at a time per GPU"},
    {"STARZK_GPU_PREFETCH", kind_t::switch_, "on", "", "prefetch a chain's data to its GPU"},
    {"STARZK_MEM_INTERLOCK", kind_t::switch_, "on", "", "cap memory-bound CPU tasks at once"},
    {"STARZK_SERIAL_FREE", kind_t::switch_, "on", "", "one free task at a time"},
    {"STARZK_L3_SPREAD", kind_t::switch_, "on", "", "spread memory-bound tasks over L3 caches"},
    {"STARZK_CPU_LOCK", kind_t::switch_, "off", "", "the CPU workers form one lock domain too"},
    {"STARZK_GPU_FIRST", kind_t::switch_, "on", "", "GPU chain tasks go to GPUs first"},
    {"STARZK_CHAIN_LOCALITY", kind_t::switch_, "on", "", "a chain stays on the GPU it started on"},
    {"STARZK_MEM_HEAVY_MAX", kind_t::count, "L3 caches (hwloc)", "1..1000000", "memory-bound CPU tasks at once"},
    {"STARZK_GPU_RUN_AHEAD", kind_t::count, "2", "0..1000000",
     "partitions a GPU works for before their chain starts (0: no bound; the memory plan lowers it to 1 where the "
     "witness map runs on the GPU)"},
    {"STARZK_CHAIN_STALL_MS", kind_t::count, "60000", "0..1000000000",
     "a chain blocking a lock this long with nothing running is released (0: never)"},
    {"STARZK_CHAIN_ON_CPU", kind_t::choice, "auto", "auto,0,1,on,off,true,false,yes,no",
     "may CPU workers run GPU chain tasks"},
}};

// The row of `name`; throws std::logic_error for a name that is no row (a
// reader's typo is a bug, not a user error).
inline const var_t& row(std::string_view name) {
  for (const var_t& v : vars)
    if (name == v.name) return v;
  throw std::logic_error("config: no variable " + std::string(name));
}

// The raw value: nullopt when unset or empty.
inline std::optional<std::string> raw(std::string_view name) {
  const char* e = std::getenv(row(name).name);
  if (e == nullptr || *e == '\0') return std::nullopt;
  return std::string(e);
}

namespace detail {
inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  return true;
}
[[noreturn]] inline void bad(const var_t& v, const std::string& value, const std::string& expected) {
  throw std::runtime_error(std::string(v.name) + "='" + value + "': expected " + expected);
}
// The checked value of row v (its kind's grammar); for a switch "1"/"0".
inline std::string checked(const var_t& v, const std::string& s) {
  switch (v.kind) {
    case kind_t::switch_:
      for (const char* t : {"1", "on", "true", "yes"})
        if (iequals(s, t)) return "1";
      for (const char* f : {"0", "off", "false", "no"})
        if (iequals(s, f)) return "0";
      bad(v, s, "1, on, true, yes, 0, off, false or no");
    case kind_t::count: {
      const std::string_view range(v.choices);
      const size_t dots = range.find("..");
      const unsigned long long lo = std::strtoull(v.choices, nullptr, 10);
      const unsigned long long hi = std::strtoull(v.choices + dots + 2, nullptr, 10);
      char* end = nullptr;
      const unsigned long long x = std::strtoull(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0' || s[0] < '0' || s[0] > '9' || x < lo || x > hi)
        bad(v, s, "a whole number in " + std::string(range));
      return s;
    }
    case kind_t::seconds: {
      char* end = nullptr;
      const double x = std::strtod(s.c_str(), &end);
      if (s.empty() || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.') || *end != '\0' || !(x >= 0) || x > 1e9)
        bad(v, s, "seconds, a number ≥ 0");
      return s;
    }
    case kind_t::choice: {
      std::string_view all(v.choices);
      for (size_t at = 0; at <= all.size();) {
        const size_t comma = std::min(all.find(',', at), all.size());
        if (iequals(s, all.substr(at, comma - at))) return std::string(all.substr(at, comma - at));
        at = comma + 1;
      }
      bad(v, s, "one of " + std::string(v.choices));
    }
    case kind_t::text:
      return s;
  }
  return s;
}
}  // namespace detail

// Typed readers: nullopt when unset; a value outside the row's grammar
// throws std::runtime_error naming the variable.
inline std::optional<bool> get_switch(std::string_view name) {
  const var_t& v = row(name);
  if (v.kind != kind_t::switch_) throw std::logic_error(std::string("config: ") + v.name + " is no switch");
  const auto s = raw(name);
  if (!s) return std::nullopt;
  return detail::checked(v, *s) == "1";
}
inline std::optional<uint64_t> get_count(std::string_view name) {
  const var_t& v = row(name);
  if (v.kind != kind_t::count) throw std::logic_error(std::string("config: ") + v.name + " is no count");
  const auto s = raw(name);
  if (!s) return std::nullopt;
  return std::strtoull(detail::checked(v, *s).c_str(), nullptr, 10);
}
inline std::optional<double> get_seconds(std::string_view name) {
  const var_t& v = row(name);
  if (v.kind != kind_t::seconds) throw std::logic_error(std::string("config: ") + v.name + " is no duration");
  const auto s = raw(name);
  if (!s) return std::nullopt;
  return std::strtod(detail::checked(v, *s).c_str(), nullptr);
}
// choice: the row's own spelling of the word; text: the value as set.
inline std::optional<std::string> get_word(std::string_view name) {
  const var_t& v = row(name);
  if (v.kind != kind_t::choice && v.kind != kind_t::text)
    throw std::logic_error(std::string("config: ") + v.name + " is no word");
  const auto s = raw(name);
  if (!s) return std::nullopt;
  return detail::checked(v, *s);
}

// Every row set in the environment checked by its grammar (the first bad
// one throws, naming it); returns the STARZK_* names set that are no row.
inline std::vector<std::string> check_environment() {
  for (const var_t& v : vars)
    if (const auto s = raw(v.name)) detail::checked(v, *s);
  std::vector<std::string> unknown;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view kv(*e);
    if (kv.rfind("STARZK_", 0) != 0) continue;
    const std::string name(kv.substr(0, kv.find('=')));
    bool known = false;
    for (const var_t& v : vars) known = known || name == v.name;
    if (!known) unknown.push_back(name);
  }
  return unknown;
}

}  // namespace starzk::config
