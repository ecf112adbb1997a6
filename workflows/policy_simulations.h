// What `exsim simulate` does beyond its options: every policy simulated (on
// threads, each result in its policy's place, or one at a time into one
// trace), the costs' ranges and each cost alone when asked (cost_ranges.h),
// widened by the model's validated error, and each prediction placed against
// where the model was checked against the real exchange.
#ifndef EXSIM_WORKFLOWS_POLICY_SIMULATIONS_H_
#define EXSIM_WORKFLOWS_POLICY_SIMULATIONS_H_

#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/results/trace.h"
#include "models/scenario/scenario.h"
#include "sim/simulate.h"

namespace exsim::workflows {

struct PolicySimulations {
  std::string scheduler = "calendar";
  bool exact = false;       // every exchange simulated whole (SimulateOptions::exact)
  int jobs = 1;             // simulations at once
  Trace* trace = nullptr;   // when set: one policy at a time, each its hosts' processes in the trace
  bool ranges = false;      // every cost at the cheap and at the dear end (--range)
  bool sensitivity = false; // and each cost alone (--sensitivity)
  double cost_spread = 0;   // > 0: every cost this share either way instead of the profile's ranges
  double model_error = 0;   // > 0: the range widened by the model's median wall-clock error...
  std::string model_error_from;  // ...in this validation file
};

// results[i] is policies[i]'s. Progress goes to standard error (workflows/progress.h).
std::vector<RunResult> simulate_policies(const Scenario& scenario, const std::vector<Policy>& policies,
                                         const PolicySimulations& request);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_POLICY_SIMULATIONS_H_
