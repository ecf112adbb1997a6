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

// Starts loading the memory an event's tag may address. Models often make the
// tag the address of their record of the event (a call's, say): at millions
// of calls in flight those records are out of every cache, and the engine
// knows which comes next before the model does. A prefetch never faults, so
// a tag that is a plain number costs nothing but the instruction.
inline void prefetch_tag(std::uint64_t tag) { __builtin_prefetch(reinterpret_cast<const void*>(tag)); }

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  virtual void push(const Event& event) = 0;
  virtual Event pop() = 0;               // REQUIRES: !empty()
  virtual const Event& top() const = 0;  // REQUIRES: !empty()
  virtual bool empty() const = 0;
  virtual std::size_t size() const = 0;
};

// An implicit d-ary min-heap in a vector. D = 4 halves the depth of a binary
// heap and keeps a node's children in one or two cache lines. Its operations are
// inline so that the Simulator can call them without a virtual call.
template <int D>
class DaryHeapScheduler final : public Scheduler {
 public:
  void push(const Event& event) override { push_inline(event); }
  Event pop() override { return pop_inline(); }
  const Event& top() const override { return heap_.front(); }
  bool empty() const override { return heap_.empty(); }
  std::size_t size() const override { return heap_.size(); }

  void push_inline(const Event& event) {
    heap_.push_back(event);
    std::size_t i = heap_.size() - 1;
    Event moving = event;
    while (i > 0) {
      std::size_t parent = (i - 1) / D;
      if (!moving.before(heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = moving;
  }

  Event pop_inline() {
    Event top = heap_.front();
    Event moving = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
    if (n == 0) return top;
    std::size_t i = 0;
    while (true) {
      std::size_t first = i * D + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = first + D < n ? first + D : n;
      for (std::size_t c = first + 1; c < end; ++c) {
        if (heap_[c].before(heap_[best])) best = c;
      }
      if (!heap_[best].before(moving)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = moving;
    return top;
  }

 private:
  std::vector<Event> heap_;
};

using QuadHeapScheduler = DaryHeapScheduler<4>;

// The event queues by name, the default first: "calendar" (calendar_scheduler.h),
// "quad-heap" or "binary-heap". Returns nullptr for an unknown name.
inline constexpr std::string_view kSchedulerNames = "calendar, quad-heap or binary-heap";
std::unique_ptr<Scheduler> make_scheduler(std::string_view name);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_ENGINE_SCHEDULER_H_
