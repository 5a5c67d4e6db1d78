// heteroprio.hpp: StarPU's heteroprio policy configured for the proof's
// codelets (docs/policies.md, "heteroprio's buckets").
//
// heteroprio keeps one FIFO ("bucket") per task priority; each kind of
// worker walks its own ordered list of buckets, and a bucket whose tasks
// run faster on one kind lets the slower kind take a task only while more
// than `slow factor` tasks per faster worker wait there. Unconfigured, it
// has a single bucket for everything. Here every codelet class gets its
// own buckets:
//
//   class      codelets               kinds         GPU factor (no models)
//   spmv       spmv, spmv_passes,     CPU, CUDA     1000
//              spmv_dev
//   ntt_h      ntt_h, ntt_h_passes    CPU, CUDA     100
//   msm        msm (H, L, A, B_g1)    CPU, CUDA     100
//   b_g2_msm   b_g2_msm               CPU, CUDA     200
//   prep_msm   prep_msm               CPU           -
//   assemble   assemble               CPU           -
//   free       free                   CPU           -
//
// three per class, by where a task may run (both kinds, CPU only, CUDA
// only: a bucket may only hold tasks every kind it serves can run), plus
// bucket 0 for tasks of other codelets (every kind). A task's priority is
// its bucket (partition_dag.cpp sets it under heteroprio). CUDA workers
// walk msm, ntt_h, spmv, b_g2_msm (finish the started chains first); CPU
// workers free, assemble, prep_msm, b_g2_msm, spmv, ntt_h, msm. The faster
// kind and the slow factor of a two-kind bucket come from this host's
// calibrated models (perfmodel_history.hpp) when an entry of the class has
// the minimum samples on both kinds, the one with the longest CPU time
// (the sizes that matter), else the defaults above: GPU faster, factors
// from the H200 at 2^24 (docs/benchmarks.md: spmv 5.6 s on one core
// against 3 ms, b_g2_msm 22-31 s against 112 ms; ntt_h and msm have no
// single-core figure there, and 100 keeps CPU workers off them until a
// hundred wait per GPU).
//
// The set-up is registered with starpu_session for "heteroprio" when this
// library is loaded, so that every session of a program that proves
// through the DAG gets it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/perfmodel_history.hpp"

struct starpu_task;

namespace starzk::dag {

enum class hp_class_t { spmv, ntt_h, msm, b_g2_msm, prep_msm, assemble, free, count };
inline constexpr size_t hp_classes = size_t(hp_class_t::count);
// Where a task of a class may run: both kinds, the CPUs only, the GPUs only.
enum class hp_where_t { both, cpu, cuda };

// Bucket 0: tasks of other codelets; then three per class.
inline constexpr unsigned hp_bucket(hp_class_t c, hp_where_t w) { return 1 + 3 * unsigned(c) + unsigned(w); }
const char* hp_class_name(hp_class_t c);

// The bucket of `task` (before its submission: its codelet and where it may
// run, from its `where` and each kind's workers, all of which must be able
// to run it). 0 for other codelets or a task no worker can run.
unsigned heteroprio_bucket(starpu_task* task);

// The class of a codelet by its name (spmv, spmv_passes, spmv_dev, ntt_h,
// ntt_h_passes, msm, b_g2_msm, prep_msm, assemble, free); none for another.
std::optional<hp_class_t> hp_class_of(std::string_view codelet);
// The bucket of a task of that codelet that may run on every CPU worker
// (cpu) and/or every CUDA worker (cuda): what heteroprio_bucket(task)
// gives, for tasks that are not the program's own (a replayed graph's,
// whose recorded priorities were another policy's). 0 for another codelet
// or neither kind.
unsigned heteroprio_bucket(std::string_view codelet, bool cpu, bool cuda);

// The faster kind of a class's two-kind bucket and how much slower the
// other kind is.
struct hp_factor_t {
  bool gpu_faster = true;
  float slow_factor = 1;
  bool from_models = false;  // false: the default
  std::uint64_t size = 0;    // the entry the factor came from (StarPU's size_base)
};
using hp_plan_t = std::array<hp_factor_t, hp_classes>;

// The plan from model entries by symbol (starzk_spmv, ...), an entry
// counting once both kinds hold `minimum` samples of its footprint.
hp_plan_t heteroprio_plan(const std::map<std::string, std::vector<runtime::history_entry_t>>& models, unsigned minimum);
// The plan the last heteroprio session was set up with, as text
// ("spmv: GPU 1000x (default); ..."); empty before any.
std::string heteroprio_plan_text();

}  // namespace starzk::dag
