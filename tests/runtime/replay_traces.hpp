// replay_traces.hpp: hand-made traces for the replay tests (test_replay.cpp,
// test_replay_edges.cpp): one event with its buffers and edges, and a
// graph of two partitions with a shared key and a final sum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "policies/resource_class.h"
#include "runtime/trace.hpp"

namespace starzk::test {

using runtime::trace_buffer_t;
using runtime::trace_event_t;
using runtime::trace_t;

inline trace_event_t event(std::uint64_t id, const std::string& name, double start_us, double dur_us,
                           std::vector<trace_buffer_t> buffers, std::vector<std::uint64_t> after) {
  trace_event_t e;
  e.id = id;
  e.name = name;
  e.codelet = name;
  e.model = "replay_test_" + name;
  e.footprint = 0x1000 + std::uint32_t(id);
  e.could_run = {"cpu"};
  e.worker = 0;
  e.worker_kind = "cpu";
  e.start_us = start_us;
  e.end_us = start_us + dur_us;
  e.submit_us = 10 + double(id);
  e.buffers = std::move(buffers);
  for (const trace_buffer_t& b : e.buffers) e.bytes += b.bytes;
  e.after = std::move(after);
  return e;
}

// Two chains of one partition each, sharing a read-only key (data 0):
//   map_p (W rows_p) -> ntt_p (RW rows_p) -> msm_p (R key, R rows_p, W out_p)
//   -> free_p (RW rows_p), msm_p's scratch only SCRATCH; then a sum of both
//   outputs (R out_0, R out_1, RW total) with eleven buffers (more than
//   StarPU keeps in the task itself).
inline trace_t two_chains() {
  trace_t t;
  const std::uint64_t key = 0, total = 9;
  std::uint64_t id = 0;
  for (std::uint32_t p = 0; p < 2; ++p) {
    const std::uint64_t rows = 1 + 4 * p, out = 2 + 4 * p, scratch = 3 + 4 * p;
    const std::uint64_t first = id;
    t.events.push_back(event(id++, "spmv", 100.0 * p, 2000, {{rows, 4096, "W"}}, {}));
    t.events.push_back(event(id++, "ntt_h", 2100 + 100.0 * p, 3000, {{rows, 4096, "RW"}}, {first}));
    t.events.push_back(event(id++, "msm_h", 5200 + 100.0 * p, 4000,
                             {{key, 1 << 20, "R"}, {rows, 4096, "R"}, {out, 96, "W"}, {scratch, 65536, "SCRATCH"}},
                             {first + 1}));
    // A writer waits for the last writer and the readers since.
    t.events.push_back(event(id++, "free", 9300 + 100.0 * p, 20, {{rows, 4096, "RW"}}, {first + 1, first + 2}));
    for (std::uint64_t i = first; i < id; ++i) {
      t.events[i].has_chain = true;
      t.events[i].chain = p;
      t.events[i].job = 1;
      t.events[i].rc = STARZK_RC_GPU_CHAIN;
    }
    t.events[first + 2].last = true;
    t.events[first + 3].rc = STARZK_RC_DEALLOC;
  }
  std::vector<trace_buffer_t> sum = {{2, 96, "R"}, {6, 96, "R"}};
  for (int i = 0; i < 8; ++i) sum.push_back({key, 1 << 20, "R"});
  sum.push_back({total, 96, "RW"});
  t.events.push_back(event(id++, "assemble", 9400, 1500, sum, {2, 6}));
  t.events.back().priority = 3;
  for (const trace_event_t& e : t.events) t.submitted.push_back(e.id);
  t.meta["policy"] = "starzk";
  return t;
}

}  // namespace starzk::test
