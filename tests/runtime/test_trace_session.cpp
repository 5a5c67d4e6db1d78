// test_trace_session.cpp: starpu_session (policy by name, ours or StarPU's,
// STARPU_SCHED, errors) and trace_recorder (every field of a real run, the
// program's own callbacks kept, the JSON round trip, malformed files).

#include <gtest/gtest.h>

#include <starpu.h>

#include <atomic>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "policies/resource_class.h"
#include "runtime/invariants.hpp"
#include "runtime/starpu_session.hpp"
#include "runtime/trace.hpp"

#include "cpu_session.hpp"

namespace {

using namespace starzk::runtime;
using starzk::test::what_of;

session_options_t opts(const std::string& policy, bool profiling = true) {
  session_options_t o;
  o.policy = policy;
  o.ncpu = 2;
  o.ncuda = 0;
  o.profiling = profiling;
  return o;
}

TEST(session, unknown_policy_is_a_clear_error_listing_the_names) {
  unsetenv("STARPU_SCHED");
  std::string msg = what_of([] { starpu_session s(opts("fastest")); });
  EXPECT_NE(msg.find("'fastest'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("starzk-nolock"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dmdas"), std::string::npos) << msg;
  EXPECT_FALSE(starpu_is_initialized());
}

TEST(session, bad_starzk_switch_is_refused_before_start) {
  unsetenv("STARPU_SCHED");
  setenv("STARZK_SERIAL_FREE", "sometimes", 1);
  std::string msg = what_of([] { starpu_session s(opts("starzk")); });
  unsetenv("STARZK_SERIAL_FREE");
  EXPECT_NE(msg.find("STARZK_SERIAL_FREE"), std::string::npos) << msg;
}

TEST(session, requested_policy_wins_over_starpu_sched) {
  setenv("STARPU_SCHED", "starzk-nomem", 1);
  {
    starpu_session s(opts("eager"));
    EXPECT_EQ(s.policy_name(), "eager");
    EXPECT_FALSE(s.runs_starzk_policy());
    EXPECT_EQ(s.cpu_workers(), 2u);
    EXPECT_EQ(s.cuda_workers(), 0u);
    EXPECT_STREQ(starpu_sched_ctx_get_sched_policy(0)->policy_name, "eager");
    // Only one StarPU per process.
    EXPECT_NE(what_of([] { starpu_session again(opts("eager")); }).find("already"), std::string::npos);
  }
  EXPECT_FALSE(starpu_is_initialized());
  // With no policy asked for, STARPU_SCHED names it.
  setenv("STARPU_SCHED", "starzk-nomem", 1);
  {
    starpu_session s(opts(""));
    EXPECT_EQ(s.policy_name(), "starzk-nomem");
    EXPECT_TRUE(s.runs_starzk_policy());
    EXPECT_STREQ(starpu_sched_ctx_get_sched_policy(0)->policy_name, "starzk-nomem");
  }
  unsetenv("STARPU_SCHED");
  EXPECT_FALSE(starpu_is_initialized());
}

TEST(session, builtin_policy_by_name) {
  unsetenv("STARPU_SCHED");
  starpu_session s(opts("dmdas"));
  EXPECT_FALSE(s.runs_starzk_policy());
  EXPECT_STREQ(starpu_sched_ctx_get_sched_policy(0)->policy_name, "dmdas");
}

TEST(trace, recorder_needs_profiling) {
  unsetenv("STARPU_SCHED");
  EXPECT_THROW(trace_recorder r, std::runtime_error);  // StarPU not running
  starpu_session s(opts("starzk", false));
  EXPECT_NE(what_of([] { trace_recorder r; }).find("profiling"), std::string::npos);
}

std::atomic<int> g_callbacks{0};
void user_callback(void* arg) { g_callbacks += *static_cast<int*>(arg); }
std::atomic<int> g_pops{0};
void user_pop(void* arg) { g_pops += *static_cast<int*>(arg); }
void work(void* buffers[], void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  (void)buffers;
}

// A CPU codelet of one RW buffer whose body sleeps 1 ms (work).
starpu_codelet rw_codelet(const char* name) {
  starpu_codelet cl;
  starpu_codelet_init(&cl);
  cl.cpu_funcs[0] = work;
  cl.nbuffers = 1;
  cl.modes[0] = STARPU_RW;
  cl.name = name;
  return cl;
}

// `data` registered as a StarPU vector in main RAM.
starpu_data_handle_t register_vector(std::vector<double>& data) {
  starpu_data_handle_t h;
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(data.data()), data.size(),
                              sizeof(double));
  return h;
}

TEST(trace, records_every_field_and_keeps_user_callbacks_and_pop_prologues) {
  unsetenv("STARPU_SCHED");
  starpu_session s(opts("starzk"));
  starpu_codelet cl = rw_codelet("prep_msm");
  starzk_codelet_set_class(&cl, STARZK_RC_MEMORY_HEAVY);
  std::vector<double> data(512, 1.0);  // 4096 bytes
  starpu_data_handle_t h = register_vector(data);

  trace_recorder rec;
  g_callbacks = 0;
  g_pops = 0;
  static int one = 1;
  for (int i = 0; i < 6; ++i) {
    starpu_task* t = starpu_task_create();
    t->cl = &cl;
    t->handles[0] = h;
    t->name = i == 0 ? "first" : nullptr;
    t->priority = i % 3;
    if (i % 2 == 0) {
      t->callback_func = user_callback;
      t->callback_arg = &one;
    } else {  // a pop prologue of the program's own: the trace's runs it
      t->prologue_callback_pop_func = user_pop;
      t->prologue_callback_pop_arg = &one;
    }
    starzk_task_set_job(t, 3);
    starzk_task_set_chain(t, 11, i == 5);
    rec.submit(t);
  }
  ASSERT_EQ(starpu_task_wait_for_all(), 0);
  starpu_data_unregister(h);
  EXPECT_EQ(g_callbacks.load(), 3);
  EXPECT_EQ(g_pops.load(), 3);
  trace_t t = rec.snapshot();
  ASSERT_EQ(t.events.size(), 6u);
  EXPECT_EQ(rec.submitted(), 6u);
  EXPECT_EQ(rec.finished(), 6u);
  double prev_end = -1;
  for (const trace_event_t& e : t.events) {
    EXPECT_EQ(e.codelet, "prep_msm");
    EXPECT_EQ(e.rc, STARZK_RC_MEMORY_HEAVY);
    EXPECT_EQ(e.worker_kind, "cpu");
    EXPECT_EQ(e.domain, 0u);
    EXPECT_GE(e.worker, 0);
    EXPECT_EQ(e.job, 3u);
    EXPECT_TRUE(e.has_chain);
    EXPECT_EQ(e.chain, 11u);
    EXPECT_EQ(e.bytes, 4096u);
    EXPECT_GT(e.end_us, e.start_us);
    EXPECT_GE(e.end_us - e.start_us, 900.0);  // the body sleeps 1 ms
    EXPECT_GE(e.start_us, prev_end);          // RW on one handle: in sequence
    EXPECT_TRUE(e.missing.empty()) << "the only memory node holds the data";
    // The one buffer: the same data in every task, its size, RW.
    ASSERT_EQ(e.buffers.size(), 1u);
    EXPECT_EQ(e.buffers[0], (trace_buffer_t{t.events[0].buffers.at(0).data, 4096, "RW"}));
    prev_end = e.end_us;
  }
  EXPECT_EQ(t.events[0].name, "first");
  EXPECT_TRUE(t.events[5].last);
  EXPECT_TRUE(check_invariants(t, {}).empty());

  // JSON round trip keeps every field.
  t.meta["policy"] = "starzk";
  t.events[1].missing = {0, 2};
  t.events[2].buffers.push_back({7, 1u << 20, "R"});
  std::stringstream ss;
  write_trace_json(t, ss);
  trace_t back = read_trace_json(ss);
  ASSERT_EQ(back.events.size(), t.events.size());
  EXPECT_EQ(back.submitted, t.submitted);
  EXPECT_EQ(back.meta.at("policy"), "starzk");
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    const auto &a = t.events[i], &b = back.events[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.starpu_job, b.starpu_job);
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.codelet, b.codelet);
    EXPECT_EQ(a.rc, b.rc);
    EXPECT_EQ(a.worker, b.worker);
    EXPECT_EQ(a.worker_kind, b.worker_kind);
    EXPECT_EQ(a.domain, b.domain);
    EXPECT_DOUBLE_EQ(a.start_us, b.start_us);
    EXPECT_DOUBLE_EQ(a.end_us, b.end_us);
    EXPECT_EQ(a.chain, b.chain);
    EXPECT_EQ(a.last, b.last);
    EXPECT_EQ(a.job, b.job);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.priority, b.priority);
    EXPECT_EQ(a.missing, b.missing);
    EXPECT_EQ(a.buffers, b.buffers);
  }
}

// StarPU reuses a freed handle's memory for the next registration. A handle
// the recorder was told to forget leaves no accesses behind, so the task on
// its successor at the same address waits for nothing and is other data
// (its buffer's data id); without forget() the successor inherits the old
// writer as a dependency (the control half).
TEST(trace, a_forgotten_handle_leaves_no_edge_to_a_handle_at_its_address) {
  unsetenv("STARPU_SCHED");
  starpu_session s(opts("eager"));
  starpu_codelet cl = rw_codelet("spmv");
  std::vector<double> data(64, 1.0);
  trace_recorder rec;
  auto run_on = [&](starpu_data_handle_t h) {
    starpu_task* t = starpu_task_create();
    t->cl = &cl;
    t->handles[0] = h;
    rec.submit(t);
    ASSERT_EQ(starpu_task_wait_for_all(), 0);
  };
  int reused = 0;
  for (bool forget : {false, true}) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      starpu_data_handle_t old = register_vector(data);
      run_on(old);
      const void* address = old;
      if (forget) rec.forget(old);
      starpu_data_unregister(old);
      starpu_data_handle_t h = register_vector(data);
      run_on(h);
      starpu_data_unregister(h);
      if (static_cast<const void*>(h) != address) continue;  // not reused: try again
      const trace_t t = rec.snapshot();
      ASSERT_GE(t.events.size(), 2u);
      const trace_event_t &first = t.events[t.events.size() - 2], &second = t.events.back();
      ASSERT_EQ(first.buffers.size(), 1u);
      ASSERT_EQ(second.buffers.size(), 1u);
      if (forget) {
        EXPECT_TRUE(second.after.empty()) << "edge to task " << second.after.front();
        EXPECT_NE(second.buffers[0].data, first.buffers[0].data) << "a new handle is new data";
      } else {
        EXPECT_EQ(second.after, std::vector<std::uint64_t>{first.id});
      }
      ++reused;
      break;
    }
  }
  // The allocator gave the freed memory back in both halves (glibc does at
  // once); otherwise the test would have checked nothing.
  EXPECT_EQ(reused, 2);
}

TEST(trace_json, chrome_format_has_what_perfetto_reads) {
  trace_t t;
  trace_event_t e;
  e.name = "ntt_h";
  e.rc = STARZK_RC_GPU_CHAIN;
  e.start_us = 10;
  e.end_us = 25;
  e.worker = 2;
  e.worker_kind = "cuda";
  e.domain = 1;
  t.events.push_back(e);
  t.submitted.push_back(0);
  std::stringstream ss;
  write_trace_json(t, ss);
  std::string s = ss.str();
  for (const char* key : {"\"traceEvents\"", "\"ph\": \"X\"", "\"ts\": 10", "\"dur\": 15", "\"pid\": 1", "\"tid\": 2",
                          "\"cat\": \"gpu_chain\"", "\"process_name\""})
    EXPECT_NE(s.find(key), std::string::npos) << key << " in\n" << s;
}

TEST(trace_json, malformed_files_name_the_problem) {
  auto err = [](const std::string& text) {
    std::stringstream ss(text);
    return what_of([&] { read_trace_json(ss); });
  };
  EXPECT_NE(err("{not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(err("{}").find("traceEvents"), std::string::npos);
  EXPECT_NE(err(R"({"traceEvents":[]})").find("starzk.submitted"), std::string::npos);
  std::string m = err(R"({"traceEvents":[{"ph":"X","name":"a","args":{"id":0}}],"starzk":{"submitted":[]}})");
  EXPECT_NE(m.find("event #1"), std::string::npos) << m;
  EXPECT_NE(m.find("starpu_job"), std::string::npos) << m;
  const std::string event =
      R"({"ph":"X","name":"a","args":{"id":0,"starpu_job":0,"codelet":"a","class":"light","worker":0,"worker_kind":"cpu",)"
      R"("domain":0,"has_chain":false,"chain":0,"last":false,"job":0,"bytes":0,"priority":0,"start_us":1.0,"end_us":2.0)";
  const std::string tail = R"(}}],"starzk":{"submitted":[0]}})";
  EXPECT_EQ(err(R"({"traceEvents":[)" + event + tail), "");
  m = err(R"({"traceEvents":[)" + event + R"(,"missing":[-1])" + tail);
  EXPECT_NE(m.find("'missing' holds a bad buffer index"), std::string::npos) << m;
  m = err(R"({"traceEvents":[)" + event + R"(,"missing":3)" + tail);
  EXPECT_NE(m.find("'missing' is no array"), std::string::npos) << m;
  EXPECT_EQ(err(R"({"traceEvents":[)" + event + R"(,"buffers":[[0,8,"RW"],[3,0,"SCRATCH"]])" + tail), "");
  m = err(R"({"traceEvents":[)" + event + R"(,"buffers":{})" + tail);
  EXPECT_NE(m.find("'buffers' is no array"), std::string::npos) << m;
  for (const char* bad : {R"([[0,8]])", R"([[-1,8,"R"]])", R"([[0,"8","R"]])", R"([7])"}) {
    m = err(R"({"traceEvents":[)" + event + R"(,"buffers":)" + bad + tail);
    EXPECT_NE(m.find("not [data, bytes, mode]"), std::string::npos) << bad << ": " << m;
  }
  m = err(R"({"traceEvents":[)" + event + R"(,"buffers":[[0,8,"RWX"]])" + tail);
  EXPECT_NE(m.find("unknown mode 'RWX'"), std::string::npos) << m;
  // Non-"X" events (metadata) are skipped, not errors.
  EXPECT_EQ(err(R"({"traceEvents":[{"ph":"M","name":"process_name"}],"starzk":{"submitted":[1]}})"), "");
  // An event whose phase is no string is no task either (found by the trace fuzz harness).
  EXPECT_EQ(err(R"({"traceEvents":[{"ph":7},{"ph":null},{"ph":["X"]}],"starzk":{"submitted":[]}})"), "");
  EXPECT_NE(what_of([] { load_trace("/nonexistent/trace.json"); }).find("/nonexistent/trace.json"), std::string::npos);
}

}  // namespace
