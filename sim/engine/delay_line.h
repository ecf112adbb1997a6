// Events that all wait the same fixed delay leave in the order they entered, so
// a FIFO can hold them with only its head in the scheduler. Models use one per
// distinct delay (half an RTT, say) to keep the event heap small.
//
// Order: a line releases its events in the order they were scheduled; events
// due at the same time as other events run after those already queued in the
// scheduler when the line's head was scheduled. Deterministic either way.
#ifndef EXSIM_SIM_ENGINE_DELAY_LINE_H_
#define EXSIM_SIM_ENGINE_DELAY_LINE_H_

#include <cstdint>
#include <stdexcept>

#include "models/base/ring_queue.h"
#include "sim/engine/simulator.h"

namespace exsim::sim {

class DelayLine final : public EventHandler {
 public:
  DelayLine(Simulator& simulator, SimTime delay) : simulator_(simulator), delay_(delay) {}
  DelayLine(const DelayLine&) = delete;
  DelayLine& operator=(const DelayLine&) = delete;

  SimTime delay() const { return delay_; }

  // Calls handler->on_event(tag) at now() + delay().
  void schedule(EventHandler* handler, std::uint64_t tag) { schedule_at(simulator_.now() + delay_, handler, tag); }

  // Calls handler->on_event(tag) at `when`: for a caller that learns late of
  // what entered the line at when - delay(). REQUIRES: now() <= when, and no
  // earlier than the line's latest entry.
  void schedule_at(SimTime when, EventHandler* handler, std::uint64_t tag) {
    if (when < simulator_.now() || (!queue_.empty() && when < queue_.at(queue_.size() - 1).when)) {
      throw std::logic_error("internal error: DelayLine::schedule_at out of order");
    }
    queue_.push(Entry{when, handler, tag});
    arm();
  }

  void on_event(std::uint64_t /*tag*/) override {
    armed_ = false;
    const SimTime now = simulator_.now();
    while (!queue_.empty() && queue_.front().when <= now) {
      Entry entry = queue_.pop();
      if (!queue_.empty()) prefetch_tag(queue_.front().tag);  // the next to leave, while this one runs
      entry.handler->on_event(entry.tag);
    }
    arm();
  }

 private:
  // Keeps exactly one scheduler event for the head, whatever callbacks do.
  void arm() {
    if (armed_ || queue_.empty()) return;
    armed_ = true;
    simulator_.at(queue_.front().when, this);
  }

  struct Entry {
    SimTime when;
    EventHandler* handler;
    std::uint64_t tag;
  };
  Simulator& simulator_;
  const SimTime delay_;
  RingQueue<Entry> queue_;
  bool armed_ = false;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_ENGINE_DELAY_LINE_H_
