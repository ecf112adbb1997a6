// Pieces that `simulate` and `run` share: choosing policies and the results table.
#ifndef EXSIM_CLI_RESULTS_TABLE_H_
#define EXSIM_CLI_RESULTS_TABLE_H_

#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/scenario.h"

namespace exsim::cli {

// The named policies of the scenario (all when `names` is empty); UsageError
// with a "did you mean" for an unknown name.
std::vector<Policy> select_policies(const Scenario& scenario, const std::vector<std::string>& names);

// One row per result, deltas against the first.
std::string render_results_table(const std::vector<RunResult>& results);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_RESULTS_TABLE_H_
