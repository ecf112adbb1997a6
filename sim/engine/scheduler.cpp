#include "sim/engine/scheduler.h"

#include "sim/engine/calendar_scheduler.h"

namespace exsim::sim {

std::unique_ptr<Scheduler> make_scheduler(std::string_view name) {
  if (name == "calendar") return std::make_unique<CalendarScheduler>();
  if (name == "quad-heap") return std::make_unique<DaryHeapScheduler<4>>();
  if (name == "binary-heap") return std::make_unique<DaryHeapScheduler<2>>();
  return nullptr;
}

}  // namespace exsim::sim
