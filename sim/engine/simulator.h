// The discrete-event engine: simulated time and callbacks, nothing more. It has
// no word for host, batch or RPC; models schedule EventHandlers on it.
//
// Time is integer nanoseconds. Events at the same time run in the order they
// were scheduled. There is no cancel: a model whose plans change keeps a
// generation number in its tag and ignores the events it has superseded.
#ifndef EXSIM_SIM_ENGINE_SIMULATOR_H_
#define EXSIM_SIM_ENGINE_SIMULATOR_H_

#include <cstdint>
#include <memory>

#include "sim/engine/calendar_scheduler.h"
#include "sim/engine/scheduler.h"

namespace exsim::sim {

class Simulator {
 public:
  explicit Simulator(std::unique_ptr<Scheduler> scheduler = make_scheduler("calendar"));
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  SimTime now() const { return now_; }

  // Calls handler->on_event(tag) at time `when`. REQUIRES: when >= now().
  // Nothing identifies a scheduled event: there is no cancel (above).
  void at(SimTime when, EventHandler* handler, std::uint64_t tag = 0);
  void after(SimTime delay, EventHandler* handler, std::uint64_t tag = 0) { at(now_ + delay, handler, tag); }

  // Runs events until none are left.
  void run();
  // Runs at most `events` events; returns whether any are left.
  bool run_for(std::uint64_t events);

  std::uint64_t events_processed() const { return processed_; }
  std::size_t pending() const { return scheduler_->size(); }
  std::size_t max_pending() const { return max_pending_; }

 private:
  std::unique_ptr<Scheduler> scheduler_;
  CalendarScheduler* calendar_;  // scheduler_ itself when it is the default: called inline
  SimTime now_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t processed_ = 0;
  std::size_t max_pending_ = 0;
};

}  // namespace exsim::sim

#endif  // EXSIM_SIM_ENGINE_SIMULATOR_H_
