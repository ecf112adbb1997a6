// The search behind `exsim advise`: the sizing policy the decision rule takes
// (models/results/decision_rule.h: the least memory within a margin of the
// fastest whose per-host sender memory stays within a budget), found in a few
// simulations rather than a grid.
//
// The space is chains of policies that differ only in size: flat buffers (powers
// of two, and the largest size below each whose batches fit one doubling down), and
// per-sender budgets (clamped to 16K-256K a channel, IMPALA-15512's rule),
// each at 1, 2 and 4 RPCs in flight; everything else is the base policy's.
// Memory is the static model's (worst case or expected, models/rules/
// sender_memory.h), known without simulating, and grows along a chain, so a
// chain's feasible part is known at once. Wall-clock falls along a chain with
// diminishing returns (fewer round trips, less per-call CPU) to the chain's
// fastest, and may rise beyond it (buffers that outgrow the cache, memory the
// process writes for the first time, a stream's last partial batches); so each
// chain's top feasible size and the size below it are simulated, and where the
// chain rises at its top, its fastest is found below by bisecting on the slope.
// The fastest seen is then checked against its neighbours in its chain, and
// followed while one is faster. Each chain whose fastest is within `prune` of
// the fastest is searched for its smallest size within `margin` of the fastest
// seen. More RPCs in flight are tried only while they pay: 4 only if 2 beat 1.
#ifndef EXSIM_WORKFLOWS_POLICY_SEARCH_H_
#define EXSIM_WORKFLOWS_POLICY_SEARCH_H_

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/results/decision_rule.h"
#include "models/results/results.h"
#include "models/scenario/scenario.h"

namespace exsim::workflows {

enum class MemoryMeasure { kWorst, kExpected };

struct SearchSpace {
  Policy base;  // what the candidates keep: compression, layout, receiver buffer
  std::vector<Bytes> flat_sizes;
  std::vector<Bytes> budgets;
  std::vector<int> in_flight;
  // Beside each flat size, the largest below it whose batches fit one doubling
  // down (e.g. 120K beside 128K), found from the static memory.
  bool under_doublings = true;
};
// The largest host's static sender memory under `policy`, by `measure`.
Bytes static_memory(const Scenario& scenario, const Policy& policy, MemoryMeasure measure);

// Flat 16K to 8M and budgets 256K to 1G (powers of two), with the flat sizes
// just under each doubling, 1, 2 and 4 in flight.
SearchSpace default_search_space(const Policy& base);

struct Candidate {
  Policy policy;
  Bytes memory = 0;  // the largest host's, by the search's measure
  bool feasible = false;
  std::optional<RunResult> result;  // when simulated
  bool dominated = false;  // a simulated candidate another beats on both wall-clock and memory
};

struct SearchOutcome {
  std::vector<Candidate> candidates;  // every policy of the space, simulated or not
  std::optional<std::size_t> best;    // the pick, if any candidate fits the budget
  std::optional<std::size_t> fastest; // the fastest simulated candidate that fits
  int simulations = 0;
  // The other feasible candidates within the margin of the fastest, as the pick is.
  std::vector<std::size_t> ties;
};

struct SearchOptions {
  Bytes budget = 0;
  MemoryMeasure measure = MemoryMeasure::kWorst;
  double margin = kLeastDecisionMargin;  // the decision rule's (models/results/decision_rule.h)
  double prune = 0.03;
  int jobs = 1;
  bool grid = false;  // simulate every feasible candidate (to check the search against)
};

// `simulate` gives a policy's results (called from `jobs` threads at once).
SearchOutcome search_policies(const Scenario& scenario, const SearchSpace& space, const SearchOptions& options,
                              const std::function<RunResult(const Policy&)>& simulate);

// "flat-64K", "budget-8M-in-flight-2".
std::string candidate_name(const Policy& policy);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_POLICY_SEARCH_H_
