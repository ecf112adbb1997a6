// `sweep --resume`: what an earlier run of the same sweep left in OUT.partial
// (or a finished OUT), kept, so that only the points missing are simulated.
#ifndef EXSIM_WORKFLOWS_SWEEP_RESUME_H_
#define EXSIM_WORKFLOWS_SWEEP_RESUME_H_

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "models/results/sweep.h"

namespace exsim::workflows {

struct SweepResume {
  std::string lines;             // the finished points' lines, as they were written
  std::set<std::size_t> done;    // their point numbers
  std::size_t dropped_lines = 0; // a torn last line, or a point not every policy of which was written
};

// The points of `points` (this run's: a shard's, or all) whose every one of
// `policies` lines is in `text`, each line checked to be of this sweep: its
// point count, its variations and its point's settings as `plan` gives them.
// UsageError naming `where` and the line for a line of another sweep, or of a
// point this run does not hold.
SweepResume read_sweep_resume(const std::string& text, const std::string& where, const SweepPlan& plan,
                              const std::vector<SweepPoint>& points, std::size_t policies);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_SWEEP_RESUME_H_
