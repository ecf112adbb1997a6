#include "sim/resources/cpu_pool.h"

#include <algorithm>
#include <cmath>

namespace exsim::sim {
namespace {
// Floating-point slack when deciding a job is done (a thousandth of a nanosecond).
constexpr double kEpsilon = 1e-3;
}  // namespace

CpuPool::CpuPool(Simulator& simulator, int cores) : simulator_(simulator), cores_(cores) {}

double CpuPool::speed() const {
  const auto n = static_cast<double>(jobs_.size());
  return n <= cores_ ? 1.0 : cores_ / n;
}

void CpuPool::advance() {
  const SimTime now = simulator_.now();
  if (now != last_update_ && !jobs_.empty()) virtual_time_ += static_cast<double>(now - last_update_) * speed();
  last_update_ = now;
}

void CpuPool::start(SimTime work, EventHandler* done, std::uint64_t tag) {
  if (work <= 0) {
    simulator_.after(0, done, tag);
    return;
  }
  advance();
  jobs_.push_back(Job{virtual_time_ + static_cast<double>(work), next_seq_++, done, tag});
  std::push_heap(jobs_.begin(), jobs_.end(), Later{});
  if (!dispatching_) reschedule();
}

void CpuPool::reschedule() {
  if (jobs_.empty()) {
    scheduled_at_ = -1;
    return;
  }
  const double remaining = std::max(0.0, jobs_.front().finish - virtual_time_);
  const SimTime when = last_update_ + static_cast<SimTime>(std::ceil(remaining / speed() - kEpsilon));
  if (when == scheduled_at_) return;
  scheduled_at_ = when;
  simulator_.at(std::max(when, simulator_.now()), this, ++generation_);
}

void CpuPool::on_event(std::uint64_t generation) {
  if (generation != generation_) return;  // superseded by a later reschedule
  scheduled_at_ = -1;
  advance();
  finished_.clear();
  // This event was scheduled for the front job's completion (any change since
  // would have superseded it), so the front job is done even when rounding of a
  // large virtual time leaves it a hair short; others due within the slack too.
  while (!jobs_.empty() && (finished_.empty() || jobs_.front().finish <= virtual_time_ + kEpsilon)) {
    std::pop_heap(jobs_.begin(), jobs_.end(), Later{});
    finished_.push_back(jobs_.back());
    jobs_.pop_back();
  }
  // Callbacks may start new jobs; reschedule once afterwards. Iterate by index:
  // a callback never touches finished_, but keep the loop safe anyway.
  dispatching_ = true;
  for (std::size_t i = 0; i < finished_.size(); ++i) {
    Job job = finished_[i];
    job.done->on_event(job.tag);
  }
  dispatching_ = false;
  reschedule();
}

}  // namespace exsim::sim
