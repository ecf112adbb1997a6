// What `exsim advise` does beyond its options: the base simulated, the search
// for the decision rule's pick (policy_search.h), the pick judged over each
// cost's range among the fastest that fit, and placed against where the model
// was checked against the real exchange.
#ifndef EXSIM_WORKFLOWS_ADVICE_H_
#define EXSIM_WORKFLOWS_ADVICE_H_

#include <functional>
#include <vector>

#include "models/results/results.h"
#include "models/results/sensitivity.h"
#include "models/scenario/scenario.h"
#include "validate/validated_region.h"
#include "workflows/policy_search.h"

namespace exsim::sim {
struct KeptRuns;
}

namespace exsim::workflows {

struct AdviceOptions {
  SearchOptions search;
  bool sensitivity = true;  // judge the pick over each cost's range
  double cost_spread = 0;   // > 0: every cost this fraction either way instead of the profile's ranges
  bool exact = false;       // every exchange simulated whole (SimulateOptions::exact)
  sim::KeptRuns* kept = nullptr;  // what the search's simulations kept, for the cost-range judging too
};

struct Advice {
  Policy base;
  RunResult base_result;
  SearchOutcome outcome;
  SensitivityVerdict verdict;    // empty when not judged
  validate::RegionCheck region;  // of the pick
};

// The pick and the fastest other simulated candidates that fit: those whose
// order each cost's range is judged on.
std::vector<const Candidate*> contenders(const SearchOutcome& outcome);

// The advice before it is judged: the base simulated, the search's pick, and
// where the pick lies against the validated region. `simulate` gives a
// policy's results (called from options.search.jobs threads at once).
Advice search_advice(const Scenario& scenario, const Policy& base, const AdviceOptions& options,
                     const std::function<RunResult(const Policy&)>& simulate);

// The runs judge_advice takes, each policy at each end (of one cost's range,
// or of all at once): 0 when it will not judge (no pick, no judging asked, no
// cost with a range). An end at a cost's own value takes the run the search
// made, simulating nothing, and is counted all the same.
std::size_t judging_simulations(const Scenario& scenario, const Advice& advice, const AdviceOptions& options);

// Judges the pick over each cost's range among the fastest that fit, filling
// advice.verdict; `simulated` is called after each of its runs (from
// options.search.jobs threads, one at a time).
void judge_advice(const Scenario& scenario, Advice& advice, const AdviceOptions& options,
                  const std::function<void()>& simulated = {});

// search_advice, then judge_advice.
Advice advise(const Scenario& scenario, const Policy& base, const AdviceOptions& options,
              const std::function<RunResult(const Policy&)>& simulate);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_ADVICE_H_
