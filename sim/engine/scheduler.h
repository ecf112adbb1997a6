// The event queue behind the Simulator: a tiny interface (push, pop, top,
// empty) so implementations can be swapped and benchmarked. Events are ordered
// by (time, seq): same-time events run in the order they were scheduled, which
// is what makes a run reproducible.
#ifndef EXSIM_SIM_ENGINE_SCHEDULER_H_
#define EXSIM_SIM_ENGINE_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace exsim::sim {

using SimTime = std::int64_t;  // nanoseconds since the start of the simulation

class EventHandler {
 public:
  virtual void on_event(std::uint64_t tag) = 0;

 protected:
  ~EventHandler() = default;
};

struct Event {
  SimTime time;
  std::uint64_t seq;
  EventHandler* handler;
  std::uint64_t tag;
  bool before(const Event& other) const { return time < other.time || (time == other.time && seq < other.seq); }
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void push(const Event& event) = 0;
  virtual Event pop() = 0;               // REQUIRES: !empty()
  virtual const Event& top() const = 0;  // REQUIRES: !empty()
  virtual bool empty() const = 0;
  virtual std::size_t size() const = 0;
};

// "quad-heap" (default: a 4-ary heap, fewer cache misses per pop) or "binary-heap".
// Returns nullptr for an unknown name.
std::unique_ptr<Scheduler> make_scheduler(std::string_view name);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_ENGINE_SCHEDULER_H_
