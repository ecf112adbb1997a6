// The costs' uncertainty, simulated: every policy with every cost at the cheap
// and at the dear end of its range together (simulate --range), and each cost
// alone at both ends (--sensitivity), the ends as figure_ends gives them (a
// profile's spread, or a stated share either way).
#ifndef EXSIM_WORKFLOWS_COST_RANGES_H_
#define EXSIM_WORKFLOWS_COST_RANGES_H_

#include <functional>
#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/results/sensitivity.h"
#include "models/scenario/scenario.h"

namespace exsim::sim {
struct KeptRuns;
}

namespace exsim::workflows {

struct CostRangeOptions {
  double relative = 0;   // > 0: every cost this share either way instead of its range
  int jobs = 1;          // simulations at once
  std::string scheduler = "calendar";
  bool exact = false;    // every exchange simulated whole (SimulateOptions::exact)
  std::function<void()> simulated;  // called after each simulation (progress)
  sim::KeptRuns* kept = nullptr;  // shared by the simulations (sim/kept_runs.h); their own if unset
};

// Fills each result's wall_range (cheap and dear ends; `from` says whence).
// results[i] is policies[i]'s.
void simulate_cost_corners(const Scenario& scenario, const std::vector<Policy>& policies,
                           std::vector<RunResult>& results, const CostRangeOptions& options);

// Fills each result's sensitivity: a CostSwing per cost that can move, in the
// profile's order of figures. An end at a cost's own value takes results[i]'s
// wall-clock (policies[i]'s, at the scenario's costs): the cost did not move,
// so the swing there is none, as the run at those costs gives.
void simulate_cost_sensitivity(const Scenario& scenario, const std::vector<Policy>& policies,
                               std::vector<RunResult>& results, const CostRangeOptions& options);

// Whether the fastest of `contenders` (their results as simulated, given)
// stays the fastest when each cost moves alone over its range and all move
// together: their sensitivity and corners simulated, then judged
// (models/results/sensitivity.h). What advise says of its pick.
SensitivityVerdict contenders_verdict(const Scenario& scenario, const std::vector<Policy>& contenders,
                                      std::vector<RunResult> results, const CostRangeOptions& options,
                                      const std::string& pick = "", double margin = kTieMargin);

// Simulations simulate_cost_sensitivity makes (for a progress bar).
std::size_t sensitivity_simulations(const Scenario& scenario, std::size_t policies, double relative);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_COST_RANGES_H_
