// Reads back what results_to_json writes: a results file of `simulate` or
// `run`, or the results inside another document (a validation's comparisons),
// so that measurements can be judged again without running them again.
#ifndef EXSIM_MODELS_RESULTS_RESULTS_READER_H_
#define EXSIM_MODELS_RESULTS_RESULTS_READER_H_

#include <vector>

#include "models/base/json_reader.h"
#include "models/results/results.h"
#include "models/scenario/costs.h"

namespace exsim {

// One result object; problems are recorded in the node's diagnostics, each
// naming its JSON pointer.
RunResult read_run_result(const JsonNode& node);

// A result's "sensitivity" (simulate --sensitivity); empty when it has none.
std::vector<CostSwing> read_sensitivity(const JsonNode& result);

// A result's "validated_region"; unchecked when it has none.
RegionNote read_region_note(const JsonNode& result);

// A costs profile inside another document (a validation's "costs" of each
// row), read over the reference profile as a profile file is.
CostProfile read_cost_profile(const JsonNode& node);

}  // namespace exsim

#endif  // EXSIM_MODELS_RESULTS_RESULTS_READER_H_
