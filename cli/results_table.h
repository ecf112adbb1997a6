// Pieces that `simulate` and `run` share: choosing policies and the results table.
#ifndef EXSIM_CLI_RESULTS_TABLE_H_
#define EXSIM_CLI_RESULTS_TABLE_H_

#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/scenario.h"

namespace exsim::cli {

// The named policies of the scenario (all when `names` is empty); UsageError
// naming `flag`, with a "did you mean", for an unknown name.
std::vector<Policy> select_policies(const Scenario& scenario, const std::vector<std::string>& names,
                                    const std::string& flag = "--policy");

// One row per result, deltas against the first, and what bounded it: its
// exchanges' sender time summed (models/results/bound.h), the largest part and
// its share; `buffers`, when given, a last column of each policy's per-channel
// buffer (policy_notes.h).
std::string render_results_table(const std::vector<RunResult>& results, const std::vector<std::string>& buffers = {});

// Notes on standard error before the table: policy_notes(), and policies whose
// results came out the same (wall-clock, RPCs and bytes).
std::vector<std::string> results_notes(const Scenario& scenario, const std::vector<Policy>& policies,
                                       const std::vector<RunResult>& results);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_RESULTS_TABLE_H_
