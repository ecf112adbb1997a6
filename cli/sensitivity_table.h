// The text `simulate --sensitivity` prints: each cost that has a range, its
// ends, the fastest policy at each, and what it moves the fastest policy's
// wall-clock by; then the verdict (models/results/sensitivity.h).
#ifndef EXSIM_CLI_SENSITIVITY_TABLE_H_
#define EXSIM_CLI_SENSITIVITY_TABLE_H_

#include <string>
#include <vector>

#include "models/results/results.h"

namespace exsim::cli {

// "" when no result carries a sensitivity.
std::string render_sensitivity(const std::vector<RunResult>& results);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_SENSITIVITY_TABLE_H_
