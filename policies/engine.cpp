// engine.cpp: the central-queue scheduler behind every starzk policy (see
// engine.hpp for the model). No exception leaves these callbacks: they
// only allocate through std containers, and an allocation failure inside a
// StarPU callback has no recovery, so the callbacks are noexcept.

#include "policies/engine.hpp"

#include <starpu.h>
#include <starpu_scheduler.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <cmath>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "policies/ready_queue.hpp"
#include "policies/resource_class.h"
#include "policies/stall.hpp"
#include "policies/starzk_policies.h"
#include "policies/topology.hpp"

namespace starzk::policies {

namespace {

std::atomic<int> g_live_engines{0};

// The private data of every live engine. starzk_policy_get_config accepts
// a context only when its policy data is in this set: a context run by any
// other policy (StarPU's, a plug-in's) holds something else there, which
// must never be read as an engine.
std::mutex g_engines_mu;
std::unordered_set<const void *> g_engines;

// The first error an engine reported in this StarPU run (a stalled chain).
std::mutex g_error_mu;
std::string g_error;

constexpr int k_class_order[STARZK_RC_COUNT] = {STARZK_RC_GPU_CHAIN, STARZK_RC_MEMORY_HEAVY,
                                                 STARZK_RC_DEALLOC, STARZK_RC_LIGHT};

bool can_run(int worker, starpu_task *task, unsigned *nimpl)
{
	unsigned impl = 0;
	int ok = starpu_worker_can_execute_task_first_impl(static_cast<unsigned>(worker), task, &impl);
	if (nimpl)
		*nimpl = impl;
	return ok != 0;
}

class engine_t
{
public:
	explicit engine_t(const rule_set_t &rules) : rules_(rules)
	{
		if (rules_.chain_stall_ms > 0)
			watch_ = std::make_unique<stall_watch_t>(
			    std::chrono::milliseconds(std::clamp(rules_.chain_stall_ms / 4, 10, 1000)), [this] { watch_stall(); });
	}

	int push(starpu_task *task) noexcept;
	starpu_task *pop() noexcept;
	void post_exec(starpu_task *task) noexcept;
	void push_notify(starpu_task *task, int workerid) noexcept;
	void add_workers(unsigned ctx, const int *ids, unsigned n) noexcept;
	void remove_workers(const int *ids, unsigned n) noexcept;
	void config(starzk_policy_config *cfg);

private:
	struct choice_t
	{
		int rc = -1;
		ready_queue_t::set_t::iterator it;
		unsigned nimpl = 0;
	};

	int cap() const { return rules_.mem_heavy_max > 0 ? rules_.mem_heavy_max : (hw_cap_ > 0 ? hw_cap_ : 1); }
	const worker_place_t &place(int w);
	bool locks(unsigned lock_domain) const;
	bool class_open(int rc, const worker_place_t &me, const ledger_t &L) const;
	bool chain_admits(const ready_entry_t &e, const worker_place_t &me, const ledger_t &L);
	bool some_cuda_can_run(starpu_task *task);
	bool leave_to_gpu(int w, starpu_task *task, unsigned nimpl);
	bool inputs_on_other_device(starpu_task *task, unsigned node);
	bool runs_ahead(const worker_place_t &me, std::uint64_t chain) const;
	std::vector<int> idle_cpu_l3s(int self);
	choice_t choose(int w, const ledger_t &L);
	void prefetch_next_chain(int w, const worker_place_t &me, const ledger_t &L);
	void go_idle(int w);
	std::vector<int> idle_workers_except(int self, starpu_task *able_to_run);
	void watch_stall() noexcept;

	rule_set_t rules_;
	int hw_cap_ = 0;
	std::mutex mu_;  // guards everything below except the atomics
	ready_queue_t queue_;
	std::uint64_t seq_ = 0;
	std::vector<int> workers_;
	std::array<worker_place_t, STARPU_NMAXWORKERS> place_{};
	std::array<bool, STARPU_NMAXWORKERS> known_{};
	std::array<std::atomic<bool>, STARPU_NMAXWORKERS> idle_{};
	std::array<std::atomic<std::uint64_t>, STARPU_NMAXWORKERS> last_fail_{};
	std::atomic<std::size_t> npending_{0};
	// The stall watch (stall.hpp); only its thread touches these three.
	std::chrono::steady_clock::time_point stall_since_;
	std::uint64_t stall_owner_ = 0, stall_gen_ = 0;
	bool stall_seen_ = false;
	std::unique_ptr<stall_watch_t> watch_;  // last: stopped before the rest goes
};

const worker_place_t &engine_t::place(int w)
{
	if (!known_[w])
	{
		place_[w] = describe_worker(w);
		known_[w] = true;
	}
	return place_[w];
}

bool engine_t::class_open(int rc, const worker_place_t &me, const ledger_t &L) const
{
	switch (rc)
	{
	case STARZK_RC_MEMORY_HEAVY:
		return !(rules_.mem_interlock && me.kind == worker_kind_t::cpu && L.mem_running >= cap());
	case STARZK_RC_DEALLOC:
		return !(rules_.serial_free && L.free_running >= 1);
	case STARZK_RC_GPU_CHAIN:
		return me.kind == worker_kind_t::cuda || rules_.chain_on_cpu != 0;
	default:
		return true;
	}
}

// The GPU lock guards device memory and the device's one chain at a time;
// chain tasks run on CPU workers (no GPU, or STARZK_CHAIN_ON_CPU) are only
// locked when STARZK_CPU_LOCK asks for it, since serialising chains on the
// CPU would idle the cores (the switch exists to test the rule on CPU-only
// machines).
bool engine_t::locks(unsigned lock_domain) const
{
	return lock_domain != STARPU_MAIN_RAM || rules_.cpu_lock;
}

bool engine_t::some_cuda_can_run(starpu_task *task)
{
	for (int w : workers_)
		if (place(w).kind == worker_kind_t::cuda && can_run(w, task, nullptr))
			return true;
	return false;
}

// GPU first for every class: a task that a CUDA worker can run is left to
// the CUDA workers by a CPU worker, unless the performance models say the
// CPU body is within 2x of the CUDA one (then whichever worker is free
// first takes it). Without a calibrated model the GPU is assumed faster:
// on the H200 a 2^24 G2 MSM took 22-31 s on one CPU worker and 112 ms on
// the GPU, a 2^24 SpMV 5.6 s against 3 ms (docs/benchmarks.md).
bool engine_t::leave_to_gpu(int w, starpu_task *task, unsigned nimpl)
{
	if (!rules_.gpu_first || place(w).kind != worker_kind_t::cpu || !some_cuda_can_run(task))
		return false;
	const unsigned ctx = task->sched_ctx;
	const double cpu = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(w, ctx), nimpl);
	double gpu = NAN;
	for (int g : workers_)
		if (place(g).kind == worker_kind_t::cuda)
		{
			unsigned gi = 0;
			if (!can_run(g, task, &gi))
				continue;
			gpu = starpu_task_expected_length(task, starpu_worker_get_perf_archtype(g, ctx), gi);
			break;
		}
	if (!(cpu > 0) || !(gpu > 0) || std::isnan(cpu) || std::isnan(gpu))
		return true;  // uncalibrated: GPU first
	return cpu > 2.0 * gpu;
}

bool engine_t::chain_admits(const ready_entry_t &e, const worker_place_t &me, const ledger_t &L)
{
	// GPU first: in auto mode a CPU worker leaves GPU_CHAIN work to CUDA
	// workers whenever one of them could run it.
	if (me.kind != worker_kind_t::cuda && rules_.chain_on_cpu < 0 && some_cuda_can_run(e.task))
		return false;
	if (!rules_.gpu_lock || !locks(me.lock_domain))
		return true;
	// A chain stays in the domain it started in; it may take a second
	// domain only when no worker of its own domains can run this task.
	bool may_spread = false;
	auto c = L.chains.find(e.chain);
	if (c != L.chains.end() && !c->second.domains.empty())
	{
		may_spread = true;
		for (int w : workers_)
			for (unsigned d : c->second.domains)
				if (place(w).lock_domain == d && can_run(w, e.task, nullptr))
					may_spread = false;
	}
	return L.chain_may_use(e.chain, me.lock_domain, may_spread);
}

std::vector<int> engine_t::idle_cpu_l3s(int self)
{
	std::vector<int> l3s;
	for (int w : workers_)
		if (w != self && idle_[w].load(std::memory_order_relaxed) && place(w).kind == worker_kind_t::cpu)
			l3s.push_back(place(w).l3);
	return l3s;
}

// Whether an input of `task` (read modes) has a valid copy on another CUDA
// worker's memory node and none on `node`: starting it here would move it
// from device to device. Host-only data does not count (it crosses PCIe to
// whichever GPU runs the task).
bool engine_t::inputs_on_other_device(starpu_task *task, unsigned node)
{
	for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(task); ++i)
	{
		if (!(STARPU_TASK_GET_MODE(task, i) & STARPU_R))
			continue;
		starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(task, i);
		if (starpu_data_is_on_node(h, node))
			continue;
		for (int o : workers_)
		{
			const worker_place_t &p = place(o);
			if (p.kind == worker_kind_t::cuda && p.lock_domain != node && starpu_data_is_on_node(h, p.lock_domain))
				return true;
		}
	}
	return false;
}

// A non-chain task of a tagged chain, on a GPU, under a run-ahead bound.
bool engine_t::runs_ahead(const worker_place_t &me, std::uint64_t chain) const
{
	return rules_.gpu_run_ahead > 0 && me.kind == worker_kind_t::cuda && me.lock_domain != STARPU_MAIN_RAM &&
	       chain >> 63 == 0;
}

engine_t::choice_t engine_t::choose(int w, const ledger_t &L)
{
	const worker_place_t me = place(w);
	choice_t best;
	choice_t first_chain;  // chain locality: the first admissible GPU_CHAIN task
	for (int rc : k_class_order)
	{
		if (!class_open(rc, me, L))
			continue;
		auto &set = queue_.of(rc);
		for (auto it = set.begin(); it != set.end(); ++it)
		{
			unsigned nimpl = 0;
			if (!can_run(w, it->task, &nimpl))
				continue;
			if (rc == STARZK_RC_GPU_CHAIN && !chain_admits(*it, me, L))
				continue;
			// Chain locality: a chain that holds no domain yet starts where
			// its inputs are (spmv may have left a, b, c on another GPU);
			// this GPU takes other work first, and such a chain only when
			// it has nothing else. A started chain goes on.
			if (rc == STARZK_RC_GPU_CHAIN && me.kind == worker_kind_t::cuda && rules_.chain_locality &&
			    me.lock_domain != STARPU_MAIN_RAM)
			{
				auto c = L.chains.find(it->chain);
				const bool started = c != L.chains.end() && !c->second.domains.empty();
				if (!started && inputs_on_other_device(it->task, me.lock_domain))
				{
					if (first_chain.rc < 0)
						first_chain = {rc, it, nimpl};
					continue;
				}
			}
			if (rc != STARZK_RC_GPU_CHAIN && leave_to_gpu(w, it->task, nimpl))
				continue;
			// Run-ahead: a GPU works for at most N partitions whose chain
			// has not started (their spmv rows and witness wait in its
			// memory); the rest wait for a chain to start.
			if (rc != STARZK_RC_GPU_CHAIN && runs_ahead(me, it->chain) &&
			    !L.may_run_ahead(it->chain, me.lock_domain, rules_.gpu_run_ahead))
				continue;
			// Topology: leave memory-heavy work to an idle worker of a less
			// loaded L3 domain (the answer is the same for the whole class).
			if (rc == STARZK_RC_MEMORY_HEAVY && me.kind == worker_kind_t::cpu && rules_.l3_spread &&
			    !l3_spread_allows(me.l3, L.l3_load, idle_cpu_l3s(w)))
				break;
			if (rc == STARZK_RC_GPU_CHAIN && me.kind == worker_kind_t::cuda)
				return {rc, it, nimpl};  // keep the GPU fed first
			if (best.rc < 0 || it->before(*best.it))
				best = {rc, it, nimpl};
			break;
		}
	}
	// Only chains whose inputs sit on another GPU, and nothing else to do:
	// better to move them than to idle.
	if (best.rc < 0 && first_chain.rc >= 0)
		return first_chain;
	return best;
}

void engine_t::prefetch_next_chain(int w, const worker_place_t &me, const ledger_t &L)
{
	// The phase-10 lesson: stage the next partition on the device only
	// when its inputs fit in what the device has left.
	unsigned node = me.lock_domain;
	for (const ready_entry_t &e : queue_.of(STARZK_RC_GPU_CHAIN))
	{
		auto c = L.chains.find(e.chain);
		if (c != L.chains.end() && !c->second.domains.empty())
			continue;  // that chain already runs somewhere
		if (!can_run(w, e.task, nullptr))
			continue;
		if (rules_.chain_locality && inputs_on_other_device(e.task, node))
			continue;  // its inputs sit on another GPU: it should start there
		if (e.prefetched)
			return;
		std::size_t need = 0;
		for (unsigned i = 0; i < STARPU_TASK_GET_NBUFFERS(e.task); ++i)
		{
			starpu_data_handle_t h = STARPU_TASK_GET_HANDLE(e.task, i);
			if (!starpu_data_is_on_node(h, node))
				need += starpu_data_get_size(h);
		}
		starpu_ssize_t avail = starpu_memory_get_available(node);
		if (avail >= 0 && need <= static_cast<std::size_t>(avail))
		{
			starpu_idle_prefetch_task_input_on_node(e.task, node);
			e.prefetched = true;
		}
		return;  // only the oldest waiting chain
	}
}

void engine_t::go_idle(int w)
{
	if (!idle_[w].exchange(true, std::memory_order_acq_rel))
		ledger_t::instance().generation.fetch_add(1, std::memory_order_acq_rel);
}

std::vector<int> engine_t::idle_workers_except(int self, starpu_task *able_to_run)
{
	std::vector<int> out;
	for (int w : workers_)
		if (w != self && idle_[w].load(std::memory_order_relaxed) &&
		    (!able_to_run || can_run(w, able_to_run, nullptr)))
			out.push_back(w);
	return out;
}

int engine_t::push(starpu_task *task) noexcept
{
	starzk_task_tag tag;
	starzk_task_get_tag(task, &tag);
	int rc = starzk_task_get_class(task);
	ready_entry_t e;
	e.job = tag.job;
	e.priority = task->priority;
	e.task = task;
	e.chain = chain_key(tag.has_chain, tag.chain);
	e.last = tag.has_chain ? tag.is_last != 0 : true;

	std::vector<int> wake;
	starpu_worker_relax_on();
	mu_.lock();
	starpu_worker_relax_off();
	e.seq = seq_++;
	queue_.push(rc, e);
	npending_.fetch_add(1, std::memory_order_acq_rel);
	starpu_push_task_end(task);
	wake = idle_workers_except(-1, task);
	ledger_t::instance().generation.fetch_add(1, std::memory_order_acq_rel);
	mu_.unlock();
	for (int w : wake)
		starpu_wake_worker_relax_light(w);
	return 0;
}

starpu_task *engine_t::pop() noexcept
{
	int w = starpu_worker_get_id_check();
	ledger_t &L = ledger_t::instance();
	if (npending_.load(std::memory_order_acquire) == 0)
	{
		go_idle(w);
		return nullptr;
	}
	std::uint64_t gen = L.generation.load(std::memory_order_acquire);
	if (last_fail_[w].load(std::memory_order_relaxed) == gen)
		return nullptr;  // nothing changed since this worker last found nothing

	starpu_worker_relax_on();
	std::lock_guard<std::mutex> lk(mu_);
	std::lock_guard<std::mutex> lk_ledger(L.mu);
	starpu_worker_relax_off();

	choice_t c = choose(w, L);
	if (c.rc < 0)
	{
		last_fail_[w].store(gen, std::memory_order_relaxed);
		go_idle(w);
		return nullptr;
	}
	const worker_place_t &me = place(w);
	starpu_task *task = c.it->task;
	admitted_t a;
	a.rc = c.rc;
	a.counts_mem = c.rc == STARZK_RC_MEMORY_HEAVY && me.kind == worker_kind_t::cpu;
	a.l3 = me.l3;
	a.counts_free = c.rc == STARZK_RC_DEALLOC;
	a.in_chain = c.rc == STARZK_RC_GPU_CHAIN && rules_.gpu_lock && locks(me.lock_domain);
	a.chain = c.it->chain;
	a.last = c.it->last;
	a.run_ahead = c.rc != STARZK_RC_GPU_CHAIN && runs_ahead(me, a.chain);
	queue_.erase(c.rc, c.it);
	npending_.fetch_sub(1, std::memory_order_acq_rel);
	starpu_task_set_implementation(task, c.nimpl);
	L.start(task, a, me.lock_domain);
	idle_[w].store(false, std::memory_order_relaxed);
	if (me.kind == worker_kind_t::cuda && rules_.gpu_lock && rules_.gpu_prefetch && me.lock_domain != STARPU_MAIN_RAM)
		prefetch_next_chain(w, me, L);
	return task;
}

void engine_t::post_exec(starpu_task *task) noexcept
{
	// Reading the tag of a finished task retires it (task_tag.cpp), so a
	// task created later at this address starts untagged.
	starzk_task_tag tag;
	starzk_task_get_tag(task, &tag);
	ledger_t &L = ledger_t::instance();
	bool released;
	{
		std::lock_guard<std::mutex> lk(L.mu);
		released = L.finish(task);
	}
	if (!released)
		return;
	std::vector<int> wake;
	starpu_worker_relax_on();
	mu_.lock();
	starpu_worker_relax_off();
	if (queue_.size() > 0)
		wake = idle_workers_except(starpu_worker_get_id(), nullptr);
	mu_.unlock();
	for (int w : wake)
		starpu_wake_worker_relax_light(w);
}

void engine_t::push_notify(starpu_task *task, int workerid) noexcept
{
	starzk_task_tag tag;
	starzk_task_get_tag(task, &tag);
	int rc = starzk_task_get_class(task);
	ledger_t &L = ledger_t::instance();
	std::lock_guard<std::mutex> lk(mu_);
	std::lock_guard<std::mutex> lk_ledger(L.mu);
	const worker_place_t &me = place(workerid);
	admitted_t a;
	a.rc = rc;
	a.counts_mem = rc == STARZK_RC_MEMORY_HEAVY && me.kind == worker_kind_t::cpu;
	a.l3 = me.l3;
	a.counts_free = rc == STARZK_RC_DEALLOC;
	a.in_chain = rc == STARZK_RC_GPU_CHAIN && rules_.gpu_lock && locks(me.lock_domain);
	a.chain = chain_key(tag.has_chain, tag.chain);
	a.last = tag.has_chain ? tag.is_last != 0 : true;
	a.run_ahead = rc != STARZK_RC_GPU_CHAIN && runs_ahead(me, a.chain);
	L.start(task, a, me.lock_domain);
}

// Called by the stall watch's thread: the same stall, with the ledger
// unchanged, for rules_.chain_stall_ms means no task will ever end it.
void engine_t::watch_stall() noexcept
{
	ledger_t &L = ledger_t::instance();
	std::vector<int> wake;
	try
	{
		std::lock_guard<std::mutex> lk(mu_);
		std::lock_guard<std::mutex> lk_ledger(L.mu);
		std::vector<std::uint64_t> ready;
		for (const ready_entry_t &e : queue_.of(STARZK_RC_GPU_CHAIN))
			ready.push_back(e.chain);
		const std::optional<stall_t> s = find_stalled_chain(L, ready);
		const std::uint64_t gen = L.generation.load(std::memory_order_acquire);
		const auto now = std::chrono::steady_clock::now();
		if (!s || !stall_seen_ || s->owner != stall_owner_ || gen != stall_gen_)
		{
			stall_seen_ = s.has_value();
			stall_owner_ = s ? s->owner : 0;
			stall_gen_ = gen;
			stall_since_ = now;
			return;
		}
		const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - stall_since_).count();
		if (ms < rules_.chain_stall_ms)
			return;
		const std::string message = describe_stall(*s, static_cast<int>(ms));
		std::fprintf(stderr, "%s\n", message.c_str());
		{
			std::lock_guard<std::mutex> lk_error(g_error_mu);
			if (g_error.empty())
				g_error = message;
		}
		L.abandon(s->owner);
		stall_seen_ = false;
		wake = idle_workers_except(-1, nullptr);
	}
	catch (...)
	{
		return;  // out of memory: try again at the next tick
	}
	for (int w : wake)
		starpu_wake_worker_relax_light(w);
}

void engine_t::add_workers(unsigned ctx, const int *ids, unsigned n) noexcept
{
	std::lock_guard<std::mutex> lk(mu_);
	for (unsigned i = 0; i < n; ++i)
	{
		int w = ids[i];
		known_[w] = false;
		place(w);
		bool present = false;
		for (int x : workers_)
			present = present || x == w;
		if (!present)
			workers_.push_back(w);
		starpu_sched_ctx_worker_shares_tasks_lists(w, static_cast<int>(ctx));
	}
	std::vector<int> cpus;
	for (int w : workers_)
		if (place(w).kind == worker_kind_t::cpu)
			cpus.push_back(w);
	hw_cap_ = default_mem_heavy_max(cpus);
	ledger_t::instance().generation.fetch_add(1, std::memory_order_acq_rel);
}

void engine_t::remove_workers(const int *ids, unsigned n) noexcept
{
	std::lock_guard<std::mutex> lk(mu_);
	for (unsigned i = 0; i < n; ++i)
		std::erase(workers_, ids[i]);
}

void engine_t::config(starzk_policy_config *cfg)
{
	std::lock_guard<std::mutex> lk(mu_);
	cfg->gpu_lock = rules_.gpu_lock;
	cfg->gpu_prefetch = rules_.gpu_prefetch;
	cfg->mem_interlock = rules_.mem_interlock;
	cfg->mem_heavy_max = cap();
	cfg->serial_free = rules_.serial_free;
	cfg->l3_spread = rules_.l3_spread;
	cfg->chain_on_cpu = rules_.chain_on_cpu;
	cfg->cpu_lock = rules_.cpu_lock ? 1 : 0;
	cfg->gpu_first = rules_.gpu_first ? 1 : 0;
	cfg->chain_locality = rules_.chain_locality ? 1 : 0;
	cfg->gpu_run_ahead = rules_.gpu_run_ahead;
	cfg->chain_stall_ms = rules_.chain_stall_ms;
}

engine_t *engine_of(unsigned ctx)
{
	return static_cast<engine_t *>(starpu_sched_ctx_get_policy_data(ctx));
}

}  // namespace

void engine_init(unsigned sched_ctx_id, const rule_set_t &defaults)
{
	std::string error;
	rule_set_t rules = apply_env(defaults, &error);
	if (!error.empty())
		std::fprintf(stderr, "%s\n", error.c_str());
	if (g_live_engines.fetch_add(1) == 0)
	{
		ledger_t &L = ledger_t::instance();
		std::lock_guard<std::mutex> lk(L.mu);
		L.reset();
		std::lock_guard<std::mutex> lk_error(g_error_mu);
		g_error.clear();
	}
	auto *engine = new engine_t(rules);
	{
		std::lock_guard<std::mutex> lk(g_engines_mu);
		g_engines.insert(engine);
	}
	starpu_sched_ctx_set_policy_data(sched_ctx_id, engine);
}

void engine_deinit(unsigned sched_ctx_id)
{
	engine_t *engine = engine_of(sched_ctx_id);
	{
		std::lock_guard<std::mutex> lk(g_engines_mu);
		g_engines.erase(engine);
	}
	delete engine;
	starpu_sched_ctx_set_policy_data(sched_ctx_id, nullptr);
	g_live_engines.fetch_sub(1);
}

int engine_push(starpu_task *task) { return engine_of(task->sched_ctx)->push(task); }
starpu_task *engine_pop(unsigned sched_ctx_id) { return engine_of(sched_ctx_id)->pop(); }
void engine_post_exec(starpu_task *task, unsigned sched_ctx_id) { engine_of(sched_ctx_id)->post_exec(task); }

void engine_push_notify(starpu_task *task, int workerid, int, unsigned sched_ctx_id)
{
	engine_of(sched_ctx_id)->push_notify(task, workerid);
}

void engine_add_workers(unsigned sched_ctx_id, int *workerids, unsigned nworkers)
{
	engine_of(sched_ctx_id)->add_workers(sched_ctx_id, workerids, nworkers);
}

void engine_remove_workers(unsigned sched_ctx_id, int *workerids, unsigned nworkers)
{
	engine_of(sched_ctx_id)->remove_workers(workerids, nworkers);
}

bool engine_error(std::string *message)
{
	std::lock_guard<std::mutex> lk(g_error_mu);
	if (message)
		*message = g_error;
	return !g_error.empty();
}

bool engine_config(unsigned sched_ctx_id, starzk_policy_config *cfg)
{
	std::lock_guard<std::mutex> lk(g_engines_mu);
	auto *engine = static_cast<engine_t *>(starpu_sched_ctx_get_policy_data(sched_ctx_id));
	if (!engine || !g_engines.count(engine))
		return false;
	engine->config(cfg);
	return true;
}

}  // namespace starzk::policies
