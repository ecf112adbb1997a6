#include "workflows/cost_ranges.h"

#include <exception>

#include <fmt/format.h>

#include "workflows/parallel.h"
#include "models/scenario/cost_figures.h"
#include "sim/kept_runs.h"
#include "sim/run_inputs.h"
#include "sim/simulate.h"

namespace exsim::workflows {
namespace {

// The figures that can move, with their ends.
std::vector<std::pair<const CostFigure*, FigureEnds>> movable(const CostProfile& costs, double relative) {
  std::vector<std::pair<const CostFigure*, FigureEnds>> out;
  for (const CostFigure& figure : cost_figures()) {
    if (const auto ends = figure_ends(costs, figure, relative)) out.emplace_back(&figure, *ends);
  }
  return out;
}

// Runs work(k) for k in [0, count) on the options' jobs, rethrowing the first failure.
void run_all(std::size_t count, const CostRangeOptions& options, const std::function<void(std::size_t)>& work) {
  const std::exception_ptr failure = for_each_parallel(count, std::max(1, options.jobs), [&](std::size_t k) {
    work(k);
    if (options.simulated) options.simulated();
  });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

void simulate_cost_corners(const Scenario& scenario, const std::vector<Policy>& policies,
                           std::vector<RunResult>& results, const CostRangeOptions& options) {
  Scenario cheap = scenario, dear = scenario;
  cheap.costs = cost_corner(scenario.costs, CostCorner::kCheap, options.relative);
  dear.costs = cost_corner(scenario.costs, CostCorner::kDear, options.relative);
  sim::KeptRuns own;
  SimulateOptions plain;
  plain.scheduler = options.scheduler;
  plain.exact = options.exact;
  plain.kept = options.kept ? options.kept : &own;
  for (auto& r : results) r.wall_range = {r.wall_s, r.wall_s, "", 0};
  run_all(2 * policies.size(), options, [&](std::size_t k) {
    const std::size_t i = k / 2;
    const double wall = simulate(k % 2 ? dear : cheap, policies[i], plain).wall_s;
    (k % 2 ? results[i].wall_range.dear_s : results[i].wall_range.cheap_s) = wall;
  });
  const std::string from = options.relative > 0
                               ? fmt::format("every cost {}% either way", 100 * options.relative)
                               : "the spread of the costs profile (" + scenario.costs.source + ")";
  for (auto& r : results) r.wall_range.from = from;
}

std::size_t sensitivity_simulations(const Scenario& scenario, std::size_t policies, double relative) {
  return 2 * policies * movable(scenario.costs, relative).size();
}

void simulate_cost_sensitivity(const Scenario& scenario, const std::vector<Policy>& policies,
                               std::vector<RunResult>& results, const CostRangeOptions& options) {
  const auto figures = movable(scenario.costs, options.relative);
  for (std::size_t i = 0; i < policies.size(); ++i) {
    results[i].sensitivity.clear();
    for (const auto& [figure, ends] : figures) {
      results[i].sensitivity.push_back({std::string(figure->key), ends.cheap, ends.dear, 0, 0});
    }
  }
  sim::KeptRuns own;
  SimulateOptions plain;
  plain.scheduler = options.scheduler;
  plain.exact = options.exact;
  plain.kept = options.kept ? options.kept : &own;
  // k: policy, figure, end.
  run_all(2 * policies.size() * figures.size(), options, [&](std::size_t k) {
    const std::size_t end = k % 2, f = (k / 2) % figures.size(), i = k / (2 * figures.size());
    Scenario moved = scenario;
    figures[f].first->set(moved.costs, end ? figures[f].second.dear : figures[f].second.cheap);
    // An end at the figure's own value (a profile whose repetitions' median is
    // their least or their most, a cost at 0 that can only grow) is the
    // scenario's own costs, and one that only says where a call's CPU is
    // counted moves no event (sim::same_timeline): the policy's wall-clock is
    // that run's.
    const double wall = sim::same_timeline(moved.costs, scenario.costs) ? results[i].wall_s
                                                                         : simulate(moved, policies[i], plain).wall_s;
    CostSwing& swing = results[i].sensitivity[f];
    (end ? swing.wall_dear_s : swing.wall_cheap_s) = wall;
  });
}

SensitivityVerdict contenders_verdict(const Scenario& scenario, const std::vector<Policy>& contenders,
                                      std::vector<RunResult> results, const CostRangeOptions& options,
                                      const std::string& pick, double margin) {
  sim::KeptRuns own;
  CostRangeOptions shared = options;
  if (!shared.kept) shared.kept = &own;
  simulate_cost_corners(scenario, contenders, results, shared);
  simulate_cost_sensitivity(scenario, contenders, results, shared);
  return sensitivity_verdict(sensitivity_rows(results), pick, margin);
}

}  // namespace exsim::workflows
