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
  std::size_t query = 0;
  std::string name;
  double whole = 0, simulated = 0;
  bool shortened = false;
  CountedRun counted, counted_simulated;
};

// Why the run cannot be stretched, or "".
std::string why_not_stretched(const EventRun& run, const std::vector<RunRows>& runs);
RunResult stretched(const EventRun& run, const std::vector<RunRows>& runs);

// Why the line through `shorter` and `run` (of half and all the shortened
// rows) does not lead to the whole run, or "".
std::string why_not_along_line(const EventRun& shorter, const EventRun& run, const std::vector<RunRows>& runs);
RunResult along_line(const EventRun& shorter, const EventRun& run, const std::vector<RunRows>& runs);

}  // namespace exsim::sim

#endif  // EXSIM_SIM_RUN_EXTENSION_H_
