// A shortened run extended to the whole rows (sim/fast_forward.h): stretched
// over each exchange's steady middle, or along the line through two runs, and
// when either may not be.
#ifndef EXSIM_SIM_RUN_EXTENSION_H_
#define EXSIM_SIM_RUN_EXTENSION_H_

#include <string>
#include <vector>

#include "sim/event_run.h"
#include "sim/fast_forward.h"

namespace exsim::sim {

// Each exchange run in the order of RunResult::exchanges: its query, name,
// rows whole and in the shortened run, whether shortened; if so, what planning
// its batches counted, of the whole run and of the shortened one.
struct RunRows {
  std::size_t query = 0, exchange = 0;
  std::string name;
  double whole = 0, simulated = 0;
  bool shortened = false;
  CountedRun counted, counted_simulated;
};

// Why the run cannot be stretched ("" if it can), and the first exchange run
// (index into `runs`) that keeps it from being.
struct NotStretched {
  std::string why;
  std::size_t run = 0;
  bool longer_helps = false;  // a middle too short to measure, which more of the same rows would lengthen
};
NotStretched why_not_stretched(const EventRun& run, const std::vector<RunRows>& runs);
// Why a shortened exchange run's buffers grow after the shortened run's rows
// (its counts, whole and shortened, say), or "".
std::string why_buffers_grow_later(const RunRows& run);
RunResult stretched(const EventRun& run, const std::vector<RunRows>& runs);

// Why the line through `shorter` and `run` (of half and all the shortened
// rows) does not lead to the whole run, or "".
std::string why_not_along_line(const EventRun& shorter, const EventRun& run, const std::vector<RunRows>& runs);
RunResult along_line(const EventRun& shorter, const EventRun& run, const std::vector<RunRows>& runs);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RUN_EXTENSION_H_
