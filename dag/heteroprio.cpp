// heteroprio.cpp: heteroprio's buckets for the proof's codelets (see
// heteroprio.hpp), and their registration with starpu_session.
#include "dag/heteroprio.hpp"

#include <starpu.h>
#include <starpu_heteroprio.h>

#include <cstdio>
#include <mutex>
#include <optional>
#include <string_view>
#include <utility>

#include "codelets/codelets.hpp"
#include "runtime/starpu_session.hpp"

namespace starzk::dag {

namespace {

using runtime::history_entry_t;

// The classes with a CUDA body, in the order CUDA workers walk them, and
// every class in the order CPU workers walk them (heteroprio.hpp).
constexpr hp_class_t k_cuda_walk[] = {hp_class_t::msm, hp_class_t::ntt_h, hp_class_t::spmv, hp_class_t::b_g2_msm};
constexpr hp_class_t k_cpu_walk[] = {hp_class_t::free, hp_class_t::assemble, hp_class_t::prep_msm, hp_class_t::b_g2_msm,
                                     hp_class_t::spmv, hp_class_t::ntt_h,    hp_class_t::msm};

// Default slow factor of the CPUs against a GPU, per class (0: CPU only).
constexpr float k_default_factor[hp_classes] = {1000, 100, 100, 200, 0, 0, 0};

std::optional<hp_class_t> class_of(const starpu_codelet* cl) {
  return cl && cl->name ? hp_class_of(cl->name) : std::nullopt;
}

hp_plan_t default_plan() {
  hp_plan_t plan;
  for (size_t c = 0; c < hp_classes; ++c) plan[c].slow_factor = k_default_factor[c];
  return plan;
}

// The plan of the session being set up (prepare() before starpu_init,
// init() inside it, on the same thread) and its text for the record.
std::mutex g_mu;
hp_plan_t g_plan = default_plan();
std::string g_text;

std::string plan_text(const hp_plan_t& plan) {
  std::string s;
  for (hp_class_t c : k_cuda_walk) {
    const hp_factor_t& f = plan[size_t(c)];
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s%s: %s faster, the other %.3gx slower (%s)", s.empty() ? "" : "; ",
                  hp_class_name(c), f.gpu_faster ? "CUDA" : "CPU", double(f.slow_factor),
                  f.from_models ? ("models, size " + std::to_string(f.size)).c_str() : "default");
    s += buf;
  }
  return s;
}

void prepare() {
  std::map<std::string, std::vector<history_entry_t>> models;
  for (starpu_codelet* cl : codelets::all_codelets())
    if (cl->model && cl->model->symbol) models[cl->model->symbol] = runtime::read_history(cl->model->symbol);
  const hp_plan_t plan = heteroprio_plan(models, runtime::calibration_minimum());
  std::lock_guard<std::mutex> lk(g_mu);
  g_plan = plan;
  g_text = plan_text(plan);
}

void map_buckets(unsigned ctx, starpu_heteroprio_types arch, const std::vector<unsigned>& order) {
  starpu_heteroprio_set_nb_prios(ctx, arch, unsigned(order.size()));
  for (unsigned i = 0; i < order.size(); ++i) starpu_heteroprio_set_mapping(ctx, arch, i, order[i]);
}

// StarPU's sched_policy_init for heteroprio (a C callback: never throws).
void init(unsigned ctx) noexcept {
  const bool cpu = starpu_cpu_worker_get_count() > 0, cuda = starpu_cuda_worker_get_count() > 0;
  if (cpu) {
    std::vector<unsigned> order;
    for (hp_class_t c : k_cpu_walk)
      order.insert(order.end(), {hp_bucket(c, hp_where_t::both), hp_bucket(c, hp_where_t::cpu)});
    order.push_back(0);
    map_buckets(ctx, STARPU_CPU_IDX, order);
  }
  if (cuda) {
    std::vector<unsigned> order;
    for (hp_class_t c : k_cuda_walk)
      order.insert(order.end(), {hp_bucket(c, hp_where_t::both), hp_bucket(c, hp_where_t::cuda)});
    order.push_back(0);
    map_buckets(ctx, STARPU_CUDA_IDX, order);
  }
  if (!(cpu && cuda)) return;
  std::lock_guard<std::mutex> lk(g_mu);
  for (hp_class_t c : k_cuda_walk) {
    const unsigned b = hp_bucket(c, hp_where_t::both);
    const hp_factor_t& f = g_plan[size_t(c)];
    starpu_heteroprio_set_faster_arch(ctx, f.gpu_faster ? STARPU_CUDA_IDX : STARPU_CPU_IDX, b);
    starpu_heteroprio_set_arch_slow_factor(ctx, f.gpu_faster ? STARPU_CPU_IDX : STARPU_CUDA_IDX, b, f.slow_factor);
  }
}

// Every program that links the DAG gets the buckets.
const bool g_registered =
    (runtime::starpu_session::set_policy_setup("heteroprio", runtime::policy_setup_t{&prepare, &init}), true);

}  // namespace

const char* hp_class_name(hp_class_t c) {
  static const char* const names[hp_classes] = {"spmv", "ntt_h", "msm", "b_g2_msm", "prep_msm", "assemble", "free"};
  return size_t(c) < hp_classes ? names[size_t(c)] : "other";
}

std::optional<hp_class_t> hp_class_of(std::string_view codelet) {
  static const std::pair<std::string_view, hp_class_t> names[] = {
      {"spmv", hp_class_t::spmv},         {"spmv_passes", hp_class_t::spmv},   {"spmv_dev", hp_class_t::spmv},
      {"ntt_h", hp_class_t::ntt_h},       {"ntt_h_passes", hp_class_t::ntt_h}, {"msm", hp_class_t::msm},
      {"b_g2_msm", hp_class_t::b_g2_msm}, {"prep_msm", hp_class_t::prep_msm},  {"assemble", hp_class_t::assemble},
      {"free", hp_class_t::free}};
  for (const auto& [name, c] : names)
    if (name == codelet) return c;
  return std::nullopt;
}

unsigned heteroprio_bucket(std::string_view codelet, bool cpu, bool cuda) {
  const std::optional<hp_class_t> c = hp_class_of(codelet);
  if (!c) return 0;
  if (cpu && cuda) return hp_bucket(*c, hp_where_t::both);
  if (cpu) return hp_bucket(*c, hp_where_t::cpu);
  if (cuda) return hp_bucket(*c, hp_where_t::cuda);
  return 0;
}

unsigned heteroprio_bucket(starpu_task* task) {
  (void)g_registered;
  const std::optional<hp_class_t> c = task ? class_of(task->cl) : std::nullopt;
  if (!c) return 0;
  // Before submission `where` is still -1: the codelet's mask applies.
  const uint32_t where = task->where == -1 ? codelets::codelet_where(task->cl) : uint32_t(task->where);
  auto every_worker_can = [&](starpu_worker_archtype type, uint32_t mask) {
    if (!(where & mask)) return false;
    int ids[STARPU_NMAXWORKERS];
    const unsigned n = starpu_worker_get_ids_by_type(type, ids, STARPU_NMAXWORKERS);
    for (unsigned i = 0; i < n; ++i)
      if (!starpu_worker_can_execute_task_first_impl(unsigned(ids[i]), task, nullptr)) return false;
    return n > 0;
  };
  return heteroprio_bucket(task->cl->name, every_worker_can(STARPU_CPU_WORKER, STARPU_CPU),
                           every_worker_can(STARPU_CUDA_WORKER, STARPU_CUDA));
}

hp_plan_t heteroprio_plan(const std::map<std::string, std::vector<history_entry_t>>& models, unsigned minimum) {
  hp_plan_t plan = default_plan();
  // Per class, the entry calibrated on both kinds with the longest CPU time.
  std::array<double, hp_classes> best_cpu_us{};
  for (starpu_codelet* cl : codelets::all_codelets()) {
    const std::optional<hp_class_t> c = class_of(cl);
    if (!c || !cl->model || !cl->model->symbol) continue;
    auto m = models.find(cl->model->symbol);
    if (m == models.end()) continue;
    // Per footprint: the mean on each kind, where it has the minimum samples.
    std::map<uint32_t, std::pair<const history_entry_t*, const history_entry_t*>> both;
    for (const history_entry_t& e : m->second) {
      if (e.nsample < minimum || e.nsample == 0 || !(e.mean_us > 0)) continue;
      if (e.arch == "cpu") both[e.footprint].first = &e;
      if (e.arch == "cuda") both[e.footprint].second = &e;
    }
    for (const auto& [fp, pair] : both) {
      const auto [on_cpu, on_cuda] = pair;
      if (!on_cpu || !on_cuda || on_cpu->mean_us <= best_cpu_us[size_t(*c)]) continue;
      best_cpu_us[size_t(*c)] = on_cpu->mean_us;
      hp_factor_t& f = plan[size_t(*c)];
      f.gpu_faster = on_cuda->mean_us <= on_cpu->mean_us;
      f.slow_factor = float(f.gpu_faster ? on_cpu->mean_us / on_cuda->mean_us : on_cuda->mean_us / on_cpu->mean_us);
      f.from_models = true;
      f.size = on_cpu->size;
    }
  }
  return plan;
}

std::string heteroprio_plan_text() {
  std::lock_guard<std::mutex> lk(g_mu);
  return g_text;
}

}  // namespace starzk::dag
