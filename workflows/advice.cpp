#include "workflows/advice.h"

#include <algorithm>
#include <mutex>

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

Advice search_advice(const Scenario& scenario, const Policy& base, const AdviceOptions& options,
                     const std::function<RunResult(const Policy&)>& simulate) {
  Advice advice;
  advice.base = base;
  advice.base_result = simulate(base);
  advice.outcome = search_policies(scenario, default_search_space(base), options.search, simulate);
  if (!advice.outcome.best) return advice;
  // Whether it lies where the model was checked.
  const Policy& pick = advice.outcome.candidates[*advice.outcome.best].policy;
  advice.region = validate::check_region(validate::region_point(scenario, pick), validate::builtin_region());
  return advice;
}

std::size_t judging_simulations(const Scenario& scenario, const Advice& advice, const AdviceOptions& options) {
  if (!options.sensitivity || !has_cost_uncertainty(scenario.costs, options.cost_spread)) return 0;
  const std::size_t policies = contenders(advice.outcome).size();
  if (policies == 0) return 0;
  return 2 * policies + sensitivity_simulations(scenario, policies, options.cost_spread);
}

void judge_advice(const Scenario& scenario, Advice& advice, const AdviceOptions& options,
                  const std::function<void()>& simulated) {
  if (judging_simulations(scenario, advice, options) == 0) return;
  // Whether the pick holds over every cost's range, among the fastest that fit.
  std::vector<Policy> policies;
  std::vector<RunResult> results;
  for (const Candidate* c : contenders(advice.outcome)) {
    policies.push_back(c->policy);
    results.push_back(*c->result);
  }
  CostRangeOptions ranges;
  ranges.jobs = options.search.jobs;
  ranges.relative = options.cost_spread;
  ranges.exact = options.exact;
  ranges.kept = options.kept;
  std::mutex one_at_a_time;
  if (simulated) {
    ranges.simulated = [&] {
      const std::lock_guard<std::mutex> guard(one_at_a_time);
      simulated();
    };
  }
  const Policy& pick = advice.outcome.candidates[*advice.outcome.best].policy;
  advice.verdict = contenders_verdict(scenario, policies, results, ranges, pick.name,
                                      std::max(options.search.margin, kTieMargin));
}

Advice advise(const Scenario& scenario, const Policy& base, const AdviceOptions& options,
              const std::function<RunResult(const Policy&)>& simulate) {
  Advice advice = search_advice(scenario, base, options, simulate);
  judge_advice(scenario, advice, options);
  return advice;
}

}  // namespace exsim::workflows
