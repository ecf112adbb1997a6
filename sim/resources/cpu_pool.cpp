#include "sim/resources/cpu_pool.h"

#include <algorithm>
#include <stdexcept>

namespace exsim::sim {

CpuPool::CpuPool(Simulator& simulator, int cores, SimTime slice)
    : simulator_(simulator), slice_(slice), free_at_(static_cast<std::size_t>(std::max(cores, 0)), 0) {
  if (cores <= 0 || slice <= 0) throw std::invalid_argument("CpuPool: cores and slice must be positive");
}

void CpuPool::sift_down_top(SimTime free_at) {
  const std::size_t n = free_at_.size();
  std::size_t i = 0;
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && free_at_[child + 1] < free_at_[child]) ++child;
    if (free_at_[child] >= free_at) break;
    free_at_[i] = free_at_[child];
    i = child;
  }
  free_at_[i] = free_at;
}

SimTime CpuPool::start(SimTime work, EventHandler* done, std::uint64_t tag) {
  const SimTime now = simulator_.now();
  if (work <= 0) {
    simulator_.at(now, done, tag);
    return now;
  }
  // The core free first (the heap's top) takes the step; its new free time
  // sinks to its place. A heap of a few dozen entries at most.
  const SimTime begin = std::max(now, free_at_.front());
  const SimTime run = std::min(work, slice_);
  sift_down_top(begin + run);
  if (run == work) {
    simulator_.at(begin + run, done, tag);
    return begin;
  }
  std::uint64_t slot;
  if (free_slots_.empty()) {
    slot = long_steps_.size();
    long_steps_.push_back({});
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  long_steps_[slot] = LongStep{work - run, done, tag};
  simulator_.at(begin + run, this, slot);
  return begin;
}

void CpuPool::on_event(std::uint64_t slot) {
  const LongStep step = long_steps_[slot];
  free_slots_.push_back(slot);
  start(step.remaining, step.done, step.tag);  // to the back of the queue
}

}  // namespace exsim::sim
