#include "workflows/advice.h"

#include <algorithm>

#include "models/scenario/costs.h"
#include "workflows/cost_ranges.h"

namespace exsim::workflows {

constexpr std::size_t kContenders = 4;

std::vector<const Candidate*> contenders(const SearchOutcome& outcome) {
  if (!outcome.best) return {};
  const Candidate* pick = &outcome.candidates[*outcome.best];
  std::vector<const Candidate*> others;
  for (const Candidate& c : outcome.candidates) {
    if (c.feasible && c.result && &c != pick) others.push_back(&c);
  }
  std::sort(others.begin(), others.end(), [](const Candidate* a, const Candidate* b) { return a->result->wall_s < b->result->wall_s; });
  if (others.size() > kContenders - 1) others.resize(kContenders - 1);
  others.insert(others.begin(), pick);
  return others;
}

Advice advise(const Scenario& scenario, const Policy& base, const AdviceOptions& options,
              const std::function<RunResult(const Policy&)>& simulate) {
  Advice advice;
  advice.base = base;
  advice.base_result = simulate(base);
  advice.outcome = search_policies(scenario, default_search_space(base), options.search, simulate);
  const SearchOutcome& outcome = advice.outcome;
  if (!outcome.best) return advice;
  const Policy& pick = outcome.candidates[*outcome.best].policy;
  // Whether the pick holds over every cost's range, among the fastest that fit.
  if (options.sensitivity) {
    std::vector<Policy> policies;
    std::vector<RunResult> results;
    for (const Candidate* c : contenders(outcome)) {
      policies.push_back(c->policy);
      results.push_back(*c->result);
    }
    CostRangeOptions ranges;
    ranges.jobs = options.search.jobs;
    ranges.relative = options.cost_spread;
    ranges.exact = options.exact;
    ranges.kept = options.kept;
    if (has_cost_uncertainty(scenario.costs, ranges.relative)) {
      advice.verdict = contenders_verdict(scenario, policies, results, ranges, pick.name,
                                          std::max(options.search.margin, kTieMargin));
    }
  }
  // And whether it lies where the model was checked.
  advice.region = validate::check_region(validate::region_point(scenario, pick), validate::builtin_region());
  return advice;
}

}  // namespace exsim::workflows
