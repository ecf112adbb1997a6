// The cores of a host (or of one machine shared by emulated hosts), shared by
// the threads that run on them the way a kernel's run queue shares them: a
// thread that becomes runnable waits for a free core in FIFO order, then runs
// its step without preemption up to one time slice; a longer step goes to the
// back of the queue after each slice. A thread never runs faster than one core.
//
// Why not processor sharing: a step here (serializing one batch, receiving one
// call, consuming one batch) is microseconds, far shorter than a kernel's slice
// (milliseconds), so a kernel runs it to its end once it has a core rather than
// sharing the core among all runnable threads at once. (Linux does let a waking
// thread preempt a running one whose virtual runtime is well ahead; the FIFO
// order here does not model that priority.)
//
// It also makes a step's start and end known when it is queued: the cores'
// free times form a min-heap, the step takes the earliest, and its completion
// is one event addressed to the caller; the pool schedules nothing of its own
// except for steps longer than a slice.
#ifndef EXSIM_SIM_RESOURCES_CPU_POOL_H_
#define EXSIM_SIM_RESOURCES_CPU_POOL_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/engine/simulator.h"

namespace exsim::sim {

class CpuPool final : public EventHandler {
 public:
  // A kernel's scheduling slice on a busy many-core host (Linux CFS:
  // sched_min_granularity, 0.75 ms x (1 + log2 of up to 8 CPUs) = 3 ms).
  static constexpr SimTime kDefaultSlice = 3'000'000;

  CpuPool(Simulator& simulator, int cores, SimTime slice = kDefaultSlice);
  CpuPool(const CpuPool&) = delete;
  CpuPool& operator=(const CpuPool&) = delete;

  // Queues `work` nanoseconds of one core's time behind the steps already
  // queued; done->on_event(tag) when finished. Returns when the step (or its
  // first slice) starts running.
  SimTime start(SimTime work, EventHandler* done, std::uint64_t tag) { return start_yielding(work, slice_, done, tag); }

  // The same for a step of a CPU-bound thread that yields its core every
  // `slice` (at most the pool's) to whatever asked for a core meanwhile. Linux
  // lets a thread that wakes after sleeping preempt one that has been running
  // (CFS wake-up preemption); a scanner thread that scans batch after batch is
  // preempted so by the sender it feeds, which a first-come run queue would
  // make wait for the scanner's whole batch.
  SimTime start_yielding(SimTime work, SimTime slice, EventHandler* done, std::uint64_t tag);

  // The same for a step of at most one slice whose caller needs no event at
  // its end (it learns the end and decides later whether to schedule one).
  // Returns when the step ends. REQUIRES: 0 < work <= slice().
  SimTime run(SimTime work) { return take_core(work) + work; }
  SimTime slice() const { return slice_; }

  // The end of a slice of a step longer than one slice (tag: its slot).
  void on_event(std::uint64_t slot) override;

 private:
  // A step that has run a slice and has more to do.
  struct LongStep {
    SimTime remaining;
    SimTime slice;
    EventHandler* done;
    std::uint64_t tag;
  };

  // The core free first (the heap's top) runs `busy` ns from now or from
  // when it is free; its new free time sinks to its place. Returns the start.
  SimTime take_core(SimTime busy) {
    const SimTime begin = std::max(simulator_.now(), free_at_.front());
    sift_down_top(begin + busy);
    return begin;
  }
  // Replaces the earliest free time (the top) with `free_at` and restores the heap.
  void sift_down_top(SimTime free_at);

  Simulator& simulator_;
  const SimTime slice_;
  std::vector<SimTime> free_at_;  // min-heap: when each core is next free; then a sentinel, never free
  std::vector<LongStep> long_steps_;
  std::vector<std::uint64_t> free_slots_;  // of long_steps_
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RESOURCES_CPU_POOL_H_
