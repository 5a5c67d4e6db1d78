// The job runner's loop (job_runner.hpp): keys shared by id, jobs opened
// in order (at most max_open_jobs unfinished), partitions submitted with
// the finished ones handed over in between, then the rest waited for.
#include "dag/job_runner.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "dag/memory_budget.hpp"

namespace starzk::dag {

job_runner_t::job_runner_t(std::vector<job_spec_t> jobs, key_loader_t load, const job_runner_options_t& options)
    : jobs_(std::move(jobs)), load_(std::move(load)), options_(options), batch_(options.batch) {
  for (const job_spec_t& j : jobs_)
    if (!j.parts.empty()) ++key_uses_[j.key_id];
}

job_runner_t::~job_runner_t() = default;

std::shared_ptr<const key_bundle_t> job_runner_t::key(size_t job) {
  std::shared_ptr<const key_bundle_t>& slot = keys_[jobs_.at(job).key_id];
  if (!slot) {
    slot = load_(job);
    loaded_ = true;
  }
  return slot;
}

void job_runner_t::key_submitted(size_t job) {
  const std::string& id = jobs_[job].key_id;
  if (--key_uses_[id] == 0) keys_.erase(id);
}

void job_runner_t::hand_over(job_sink_t& sink, partition_result_t r) {
  const uint32_t seq = r.job;
  const size_t job = job_of_.at(seq);
  if (auto u = unfinished_.find(seq); u != unfinished_.end() && --u->second == 0) unfinished_.erase(u);
  sink.finished(job, std::move(r));
  sink.progressed(batch_);
}

bool job_runner_t::wait_one(job_sink_t& sink) {
  std::optional<partition_result_t> r = deadline_ ? batch_.wait_next_until(*deadline_) : batch_.wait_next();
  if (!r && deadline_ && batch_.in_flight() > 0) {
    sink.deadline_passed(batch_);
    std::abort();  // deadline_passed must not return: the partitions in flight cannot be waited for
  }
  if (!r) return false;
  hand_over(sink, std::move(*r));
  return true;
}

void job_runner_t::submit(job_sink_t& sink, size_t job, uint32_t seq, job_part_t& part) {
  ++unfinished_[seq];
  try {
    batch_.submit(seq, part.index, std::move(part.fill), part.label, options_.fixed_rs);
    sink.submitted(job, part.index);
  } catch (const std::exception& e) {
    partition_result_t failed;
    failed.job = seq;
    failed.index = part.index;
    failed.label = part.label;
    const std::string what = e.what();
    failed.error = what.find(part.label) == std::string::npos ? part.label + ": " + what : what;
    hand_over(sink, std::move(failed));
  }
  while (auto r = batch_.poll()) hand_over(sink, std::move(*r));
  sink.progressed(batch_);
}

void job_runner_t::run(job_sink_t& sink, std::optional<time_point> deadline) {
  deadline_ = deadline;
  for (size_t j = 0; j < jobs_.size(); ++j) {
    if (sink.stop()) break;  // nothing more is submitted
    job_spec_t& spec = jobs_[j];
    if (spec.parts.empty()) {
      sink.skipped(j);
      continue;
    }
    read_ahead(spec.parts.front());
    std::shared_ptr<const key_bundle_t> k;
    try {
      k = key(j);
    } catch (const std::exception& e) {
      key_submitted(j);
      sink.key_failed(j, e.what());
      continue;
    }
    // The "auto" budget was half of MemAvailable before any key: once a
    // key is resident, half of what is left (never more than before).
    bool shrunk = false;
    if (std::exchange(loaded_, false) && options_.auto_budget) {
      batch_.set_memory_cap(std::min(batch_.budget().cap(), batch_.budget().in_use() + default_memory_budget()));
      shrunk = true;
    }
    sink.key_ready(j, *k, batch_, shrunk);
    if (options_.max_open_jobs)
      while (unfinished_.size() >= options_.max_open_jobs)
        if (!wait_one(sink))
          throw std::runtime_error("the batch has nothing in flight but " + std::to_string(unfinished_.size()) +
                                   " jobs are unfinished");
    const uint32_t seq = batch_.open_job(k, spec.name);
    job_of_[seq] = j;
    sink.opened(j);
    for (job_part_t& part : spec.parts) {
      if (sink.stop()) break;
      read_ahead(part);
      submit(sink, j, seq, part);
    }
    batch_.close_job(seq);
    key_submitted(j);
  }
  while (wait_one(sink)) {
  }
}

}  // namespace starzk::dag
