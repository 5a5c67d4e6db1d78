// trace_json.cpp: a trace as Chrome trace-event JSON (see trace.hpp):
// one complete event ("ph": "X") per task, its fields under "args", one
// row per worker and one process per lock domain for viewers
// (chrome://tracing, Perfetto), and the reader that checks every field
// it takes, so that `starzk trace` refuses a malformed file with the
// event and the field it stopped at.

#include <starpu.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "policies/resource_class.h"
#include "runtime/trace.hpp"

namespace starzk::runtime {

using json = nlohmann::json;

void write_trace_json(const trace_t& trace, std::ostream& out) {
  json events = json::array();
  std::set<unsigned> domains;
  std::set<std::pair<unsigned, int>> rows;
  for (const trace_event_t& e : trace.events) {
    const char* cls = starzk_resource_class_name(static_cast<starzk_resource_class>(e.rc));
    json args = {{"id", e.id},
                 {"starpu_job", e.starpu_job},
                 {"codelet", e.codelet},
                 {"class", cls ? cls : "light"},
                 {"worker", e.worker},
                 {"worker_kind", e.worker_kind},
                 {"domain", e.domain},
                 {"has_chain", e.has_chain},
                 {"chain", e.chain},
                 {"last", e.last},
                 {"job", e.job},
                 {"bytes", e.bytes},
                 {"priority", e.priority},
                 {"start_us", e.start_us},
                 {"end_us", e.end_us},
                 {"submit_us", e.submit_us},
                 {"ready_us", e.ready_us},
                 {"popped_us", e.popped_us},
                 {"fetched_us", e.fetched_us},
                 {"missing", e.missing},
                 {"after", e.after}};
    json buffers = json::array();
    for (const trace_buffer_t& b : e.buffers) buffers.push_back(json::array({b.data, b.bytes, b.mode}));
    args["buffers"] = std::move(buffers);
    if (!e.model.empty()) {
      args["model"] = e.model;
      args["footprint"] = e.footprint;
      args["could_run"] = e.could_run;
    }
    events.push_back({{"name", e.name.empty() ? e.codelet : e.name},
                      {"cat", cls ? cls : "light"},
                      {"ph", "X"},
                      {"ts", e.start_us},
                      {"dur", e.end_us - e.start_us},
                      {"pid", e.domain},
                      {"tid", e.worker},
                      {"args", args}});
    domains.insert(e.domain);
    rows.insert({e.domain, e.worker});
  }
  for (unsigned d : domains)
    events.push_back(
        {{"name", "process_name"},
         {"ph", "M"},
         {"pid", d},
         {"args", {{"name", "lock domain " + std::to_string(d) + (d == 0 ? " (RAM: CPU workers)" : "")}}}});
  for (auto [d, w] : rows)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", d},
                      {"tid", w},
                      {"args", {{"name", "worker " + std::to_string(w)}}}});
  json doc = {{"traceEvents", events},
              {"displayTimeUnit", "ms"},
              {"otherData", trace.meta},
              {"starzk", {{"submitted", trace.submitted}}}};
  out << doc.dump(1) << '\n';
}

void save_trace(const trace_t& trace, const std::string& path) {
  // Through a temporary and a rename (io/atomic_file.hpp): a full disk
  // or a kill leaves the previous trace or none, never a truncated one.
  std::ostringstream text;
  write_trace_json(trace, text);
  write_file_atomic(path, std::string_view(text.str()));
}

namespace {

const json& field(const json& obj, const char* key, std::size_t index, json::value_t want) {
  auto it = obj.find(key);
  bool ok = false;
  if (it != obj.end()) switch (want) {
      case json::value_t::number_float:
        ok = it->is_number();
        break;
      case json::value_t::number_integer:
        ok = it->is_number_integer();
        break;
      case json::value_t::number_unsigned:
        ok = it->is_number_unsigned();
        break;
      default:
        ok = it->type() == want;
        break;
    }
  if (!ok)
    throw std::runtime_error("trace: event #" + std::to_string(index) + ": field '" + key +
                             "' is missing or has the wrong type");
  return *it;
}

}  // namespace

trace_t read_trace_json(std::istream& in) {
  json doc;
  try {
    in >> doc;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("trace: not valid JSON: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    throw std::runtime_error("trace: top-level 'traceEvents' array missing");
  using vt = json::value_t;
  trace_t t;
  std::size_t index = 0;
  for (const json& ev : doc["traceEvents"]) {
    ++index;
    if (!ev.is_object()) continue;
    const auto ph = ev.find("ph");
    if (ph == ev.end() || !ph->is_string() || ph->get<std::string>() != "X") continue;
    const json& args = field(ev, "args", index, vt::object);
    trace_event_t e;
    e.name = field(ev, "name", index, vt::string).get<std::string>();
    e.id = field(args, "id", index, vt::number_unsigned).get<std::uint64_t>();
    e.starpu_job = field(args, "starpu_job", index, vt::number_unsigned).get<std::uint64_t>();
    e.codelet = field(args, "codelet", index, vt::string).get<std::string>();
    starzk_resource_class rc;
    if (starzk_resource_class_from_name(field(args, "class", index, vt::string).get<std::string>().c_str(), &rc) != 0)
      throw std::runtime_error("trace: event #" + std::to_string(index) + ": unknown 'class'");
    e.rc = rc;
    e.worker = field(args, "worker", index, vt::number_integer).get<int>();
    e.worker_kind = field(args, "worker_kind", index, vt::string).get<std::string>();
    e.domain = field(args, "domain", index, vt::number_unsigned).get<unsigned>();
    e.has_chain = field(args, "has_chain", index, vt::boolean).get<bool>();
    e.chain = field(args, "chain", index, vt::number_unsigned).get<std::uint32_t>();
    e.last = field(args, "last", index, vt::boolean).get<bool>();
    e.job = field(args, "job", index, vt::number_unsigned).get<std::uint32_t>();
    e.bytes = field(args, "bytes", index, vt::number_unsigned).get<std::uint64_t>();
    e.priority = field(args, "priority", index, vt::number_integer).get<int>();
    // Exact times live in args; ts/dur are what viewers read.
    e.start_us = field(args, "start_us", index, vt::number_float).get<double>();
    e.end_us = field(args, "end_us", index, vt::number_float).get<double>();
    // Kept since dependencies were recorded; older traces lack them.
    if (auto it = args.find("submit_us"); it != args.end() && it->is_number()) e.submit_us = it->get<double>();
    if (auto it = args.find("ready_us"); it != args.end() && it->is_number()) e.ready_us = it->get<double>();
    if (auto it = args.find("popped_us"); it != args.end() && it->is_number()) e.popped_us = it->get<double>();
    if (auto it = args.find("fetched_us"); it != args.end() && it->is_number()) e.fetched_us = it->get<double>();
    if (auto it = args.find("missing"); it != args.end()) {
      if (!it->is_array())
        throw std::runtime_error("trace: event " + std::to_string(index) + ": 'missing' is no array");
      for (const json& i : *it) {
        if (!i.is_number_unsigned() || i.get<std::uint64_t>() >= STARPU_NMAXBUFS * 64)
          throw std::runtime_error("trace: event " + std::to_string(index) + ": 'missing' holds a bad buffer index");
        e.missing.push_back(i.get<unsigned>());
      }
    }
    if (auto it = args.find("after"); it != args.end()) {
      if (!it->is_array()) throw std::runtime_error("trace: event " + std::to_string(index) + ": 'after' is no array");
      for (const json& id : *it) {
        if (!id.is_number_unsigned())
          throw std::runtime_error("trace: event " + std::to_string(index) + ": 'after' holds a non-integer");
        e.after.push_back(id.get<std::uint64_t>());
      }
    }
    if (auto it = args.find("buffers"); it != args.end()) {
      const std::string at = "trace: event " + std::to_string(index) + ": ";
      if (!it->is_array()) throw std::runtime_error(at + "'buffers' is no array");
      for (const json& b : *it) {
        if (!b.is_array() || b.size() != 3 || !b[0].is_number_unsigned() || !b[1].is_number_unsigned() ||
            !b[2].is_string())
          throw std::runtime_error(at + "'buffers' holds an entry that is not [data, bytes, mode]");
        trace_buffer_t tb{b[0].get<std::uint64_t>(), b[1].get<std::uint64_t>(), b[2].get<std::string>()};
        if (tb.mode != "R" && tb.mode != "W" && tb.mode != "RW" && tb.mode != "SCRATCH" && tb.mode != "REDUX")
          throw std::runtime_error(at + "'buffers' holds an unknown mode '" + tb.mode + "'");
        e.buffers.push_back(std::move(tb));
      }
    }
    if (auto it = args.find("model"); it != args.end()) {
      e.model = field(args, "model", index, vt::string).get<std::string>();
      const std::uint64_t fp = field(args, "footprint", index, vt::number_unsigned).get<std::uint64_t>();
      if (fp > UINT32_MAX)
        throw std::runtime_error("trace: event " + std::to_string(index) + ": 'footprint' too large");
      e.footprint = std::uint32_t(fp);
      for (const json& k : field(args, "could_run", index, vt::array)) {
        if (!k.is_string())
          throw std::runtime_error("trace: event " + std::to_string(index) + ": 'could_run' holds a non-string");
        e.could_run.push_back(k.get<std::string>());
      }
    }
    t.events.push_back(std::move(e));
  }
  if (auto it = doc.find("otherData"); it != doc.end() && it->is_object())
    for (auto& [k, v] : it->items())
      if (v.is_string()) t.meta[k] = v.get<std::string>();
  auto sz = doc.find("starzk");
  if (sz == doc.end() || !sz->is_object() || !sz->contains("submitted") || !(*sz)["submitted"].is_array())
    throw std::runtime_error("trace: 'starzk.submitted' array missing");
  for (const json& id : (*sz)["submitted"]) {
    if (!id.is_number_unsigned()) throw std::runtime_error("trace: 'starzk.submitted' holds a non-integer");
    t.submitted.push_back(id.get<std::uint64_t>());
  }
  return t;
}

trace_t load_trace(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("load_trace: cannot open '" + path + "'");
  try {
    return read_trace_json(f);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

}  // namespace starzk::runtime
