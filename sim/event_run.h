// The scenario simulated event by event: what simulate() runs with --exact,
// and shortened, to fast-forward (sim/fast_forward.h).
#ifndef EXSIM_SIM_EVENT_RUN_H_
#define EXSIM_SIM_EVENT_RUN_H_

#include <vector>

#include "sim/engine/scheduler.h"
#include "sim/exchange/sender_window.h"
#include "sim/simulate.h"

namespace exsim::sim {

struct EventRun {
  RunResult result;
  // Of each exchange run, in the order of result.exchanges: when it started
  // and ended; its senders' buffer rooms and outbound buffers at the end
  // (SenderInstance::buffer_rooms); their times over their steady middle; the
  // run at the middle's ends.
  struct Track {
    SimTime start, end;
    Bytes rooms;
    int outbound;
    SenderWindow middle;
    std::array<ProgressMark, 2> marks;
  };
  std::vector<Track> tracks;
  SimulationCounters counters;
};

EventRun simulate_events(const Scenario& scenario, const Policy& policy, const SimulateOptions& options);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_EVENT_RUN_H_
