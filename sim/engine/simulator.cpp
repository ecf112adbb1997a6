#include "sim/engine/simulator.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace exsim::sim {

Simulator::Simulator(std::unique_ptr<Scheduler> scheduler)
    : scheduler_(std::move(scheduler)), calendar_(dynamic_cast<CalendarScheduler*>(scheduler_.get())) {
  if (!scheduler_) throw std::invalid_argument("Simulator: no scheduler");
}

void Simulator::at(SimTime when, EventHandler* handler, std::uint64_t tag) {
  if (when < now_) {
    throw std::logic_error(fmt::format("internal error: event scheduled in the past ({} < {} ns)", when, now_));
  }
  const std::uint64_t seq = next_seq_++;
  if (calendar_) {
    calendar_->push_inline(Event{when, seq, handler, tag});
    max_pending_ = std::max(max_pending_, calendar_->size());
  } else {
    scheduler_->push(Event{when, seq, handler, tag});
    max_pending_ = std::max(max_pending_, scheduler_->size());
  }
}

void Simulator::run() { run_for(std::numeric_limits<std::uint64_t>::max()); }

bool Simulator::run_for(std::uint64_t events) {
  const std::uint64_t stop = events > std::numeric_limits<std::uint64_t>::max() - processed_
                                 ? std::numeric_limits<std::uint64_t>::max()
                                 : processed_ + events;
  while (calendar_ ? !calendar_->empty() : !scheduler_->empty()) {
    if (processed_ == stop) return true;
    Event event = calendar_ ? calendar_->pop_inline() : scheduler_->pop();
    if (calendar_) calendar_->prefetch_next();
    now_ = event.time;
    ++processed_;
    event.handler->on_event(event.tag);
  }
  return false;
}

}  // namespace exsim::sim
