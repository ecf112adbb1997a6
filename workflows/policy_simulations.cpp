#include "workflows/policy_simulations.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <mutex>

#include <fmt/format.h>

#include "sim/kept_runs.h"
#include "validate/validated_region.h"
#include "workflows/cost_ranges.h"
#include "workflows/parallel.h"
#include "workflows/progress.h"

namespace exsim::workflows {

std::vector<RunResult> simulate_policies(const Scenario& scenario, const std::vector<Policy>& policies,
                                         const PolicySimulations& request) {
  // One scenario throughout, costs and policies apart: counts and runs are shared.
  sim::KeptRuns kept;
  SimulateOptions options;
  options.scheduler = request.scheduler;
  options.exact = request.exact;
  options.kept = &kept;
  const int jobs = std::min(request.jobs, static_cast<int>(policies.size()));
  // A bar on a terminal; elsewhere a line per policy once the run has taken a
  // second (a quick run prints nothing).
  Progress progress("policies", policies.size());
  const auto started = std::chrono::steady_clock::now();
  auto finished = [&](const Policy& policy) {
    if (std::chrono::steady_clock::now() - started > std::chrono::seconds(1)) {
      progress.done(policy.name);
    } else {
      progress.advance();
    }
  };
  std::vector<RunResult> results(policies.size());
  if (jobs <= 1 || request.trace) {
    // One at a time: one trace, each policy's hosts its own processes in it.
    options.progress = [&](double fraction) { progress.partial(fraction); };
    for (std::size_t i = 0; i < policies.size(); ++i) {
      if (request.trace) {
        options.trace = request.trace;
        options.trace_pid_base = static_cast<int>(i * scenario.cluster.hosts.size());
      }
      results[i] = simulate(scenario, policies[i], options);
      finished(policies[i]);
    }
  } else {
    // Policies on `jobs` threads, each result in its policy's place: the same
    // results as one at a time (each simulation is its own, seeded alike).
    const std::exception_ptr failure = for_each_parallel(policies.size(), jobs, [&](std::size_t i) {
      results[i] = simulate(scenario, policies[i], options);
      finished(policies[i]);
    });
    if (failure) std::rethrow_exception(failure);
  }
  progress.finish();
  const bool ranged = request.ranges || request.sensitivity;
  if (ranged || request.model_error > 0) {
    for (auto& r : results) r.wall_range = {r.wall_s, r.wall_s, "", 0};
  }
  if (ranged) {
    CostRangeOptions ranges;
    ranges.relative = request.cost_spread;
    ranges.jobs = request.jobs;
    ranges.scheduler = request.scheduler;
    ranges.exact = request.exact;
    ranges.kept = &kept;
    const std::size_t count =
        2 * policies.size() +
        (request.sensitivity ? sensitivity_simulations(scenario, policies.size(), request.cost_spread) : 0);
    Progress ranging("simulations of the costs' ends", count);
    std::mutex lock;
    ranges.simulated = [&] {
      const std::lock_guard<std::mutex> guard(lock);
      ranging.advance();
    };
    simulate_cost_corners(scenario, policies, results, ranges);
    if (request.sensitivity) simulate_cost_sensitivity(scenario, policies, results, ranges);
    ranging.finish();
  }
  if (request.model_error > 0) {
    for (auto& r : results) {
      r.wall_range.cheap_s *= 1 - request.model_error;
      r.wall_range.dear_s *= 1 + request.model_error;
      r.wall_range.model_error = request.model_error;
      r.wall_range.from += fmt::format("{}the model's median wall-clock error of {:.1f}% in {}",
                                       r.wall_range.from.empty() ? "" : ", widened by ", 100 * request.model_error,
                                       request.model_error_from);
    }
  }
  // How far each prediction lies from where the model was checked.
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const validate::RegionCheck check =
        validate::check_region(validate::region_point(scenario, policies[i]), validate::builtin_region());
    results[i].validated_region = {true, check.inside, check.warning()};
  }
  return results;
}

}  // namespace exsim::workflows
