#include "workflows/validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "models/base/error.h"
#include "models/scenario/scenario_loader.h"
#include "sim/simulate.h"

namespace exsim::workflows {
namespace {

// The simulator's prediction of one policy, through the model error asked for (if any).
RunResult predict(Scenario scenario, std::size_t policy, std::optional<validate::ModelError> error) {
  if (error) validate::apply(*error, scenario);
  return simulate(scenario, scenario.policies.at(policy));
}

// A row's scenario file: the suite's file of the same name when a suite is
// given (a recorded measurement judged against the suite as it is now, from
// any directory), else the path the row names.
std::string scenario_file_of(const validate::Measurement& row, const validate::Suite& suite) {
  const std::string name = std::filesystem::path(row.scenario_file).filename().string();
  for (const auto& file : suite.scenarios) {
    if (std::filesystem::path(file).filename().string() == name) return file;
  }
  return row.scenario_file;
}

}  // namespace

std::vector<LoadedScenario> load_suite_scenarios(const validate::Suite& suite) {
  std::vector<LoadedScenario> scenarios;
  std::vector<std::string> problems;
  for (const auto& file : suite.scenarios) {
    try {
      std::string text = read_scenario_file(file);
      Scenario scenario = parse_scenario(text, file);
      scenarios.push_back({file, std::move(text), std::move(scenario)});
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.messages().begin(), e.messages().end());
    }
  }
  if (!problems.empty()) throw InputError(problems);
  return scenarios;
}

Judged compare_measured(std::vector<LoadedScenario> scenarios, MeasuredSuite measured, const CostProfile& fixed,
                        std::optional<validate::ModelError> error) {
  Judged judged;
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    Scenario& scenario = scenarios[s].scenario;
    MeasuredScenario& m = measured.scenarios.at(s);
    for (std::size_t i = 0; i < scenario.policies.size(); ++i) {
      // A run against the simulation of its round's costs, moved to the machine's speed around it.
      auto compare_run = [&](validate::RoundRun& run) {
        const auto round = static_cast<std::size_t>(run.round);
        const MachineSlowdown slowdown =
            round < measured.round_probes.size() ? validate::slowdown_of(run.probes, measured.round_probes[round])
                                                 : MachineSlowdown{};
        scenario.costs = at_slowdown(measured.round_costs.empty() ? fixed : measured.round_costs.at(round), slowdown);
        validate::Comparison c =
            validate::compare(scenarios[s].file, predict(scenario, i, error), std::move(run.result), scenario.costs);
        c.slowdown = slowdown;
        return c;
      };
      // Unjudged, a policy shows its steady runs, or without one those set aside.
      const bool steady = m.unjudged.at(i).empty();
      const bool any_steady = !m.runs.at(i).empty();
      std::vector<validate::Comparison> rounds;
      for (validate::RoundRun& run : any_steady ? m.runs.at(i) : m.set_aside.at(i)) {
        rounds.push_back(compare_run(run));
        rounds.back().steady = steady;
        if (!steady) rounds.back().unsteady_why = m.unjudged[i];
      }
      if (rounds.empty()) continue;  // never run: every try failed
      std::sort(rounds.begin(), rounds.end(), [](const auto& a, const auto& b) { return a.wall_error < b.wall_error; });
      std::vector<double> errors, set_aside;
      for (const auto& r : rounds) errors.push_back(r.wall_error);
      if (any_steady) {
        for (validate::RoundRun& run : m.set_aside.at(i)) set_aside.push_back(compare_run(run).wall_error);
        std::sort(set_aside.begin(), set_aside.end());
      }
      // The median run; of an even number, the middle one nearer the prediction: a row is then beyond
      // a threshold only when a majority of its runs are, 2 of 2 as 2 of 3.
      std::size_t middle = rounds.size() / 2;
      if (rounds.size() % 2 == 0 && std::abs(rounds[middle - 1].wall_error) < std::abs(rounds[middle].wall_error)) {
        --middle;
      }
      judged.comparisons.push_back(std::move(rounds[middle]));
      judged.comparisons.back().run_wall_errors = std::move(errors);
      judged.comparisons.back().set_aside_wall_errors = std::move(set_aside);
    }
  }
  return judged;
}

std::vector<validate::Comparison> compare_again(const validate::Measurements& measurements,
                                                const validate::Suite& suite,
                                                std::optional<validate::ModelError> error) {
  std::vector<validate::Comparison> comparisons;
  std::vector<std::string> problems;
  // By file and the cluster it ran on in place of its own (a real cluster's).
  std::map<std::pair<std::string, std::string>, Scenario> scenarios;
  for (const auto& row : measurements.rows) {
    const std::string file = scenario_file_of(row, suite);
    if (scenarios.count({file, row.cluster})) continue;
    try {
      std::string text = read_scenario_file(file);
      if (!row.cluster.empty()) text = with_cluster(text, file, row.cluster, "the measurements' cluster");
      scenarios.emplace(std::pair{file, row.cluster}, parse_scenario(text, file));
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.messages().begin(), e.messages().end());
    }
  }
  if (!problems.empty()) throw InputError(problems);
  for (const auto& row : measurements.rows) {
    Scenario scenario = scenarios.at({scenario_file_of(row, suite), row.cluster});
    scenario.costs = row.costs;
    const auto& policies = scenario.policies;
    const auto it = std::find_if(policies.begin(), policies.end(),
                                 [&](const Policy& p) { return p.name == row.measured.policy; });
    if (it == policies.end()) {
      throw InputError(
          {fmt::format("{}: no policy '{}', which the measurements name", row.scenario_file, row.measured.policy)});
    }
    RunResult predicted = predict(scenario, static_cast<std::size_t>(it - policies.begin()), error);
    comparisons.push_back(validate::compare(row.scenario_file, std::move(predicted), row.measured, row.costs));
    comparisons.back().steady = row.steady;
    comparisons.back().unsteady_why = row.unsteady_why;
    comparisons.back().cluster = row.cluster;
    comparisons.back().slowdown = row.slowdown;
  }
  return comparisons;
}

MachineValidation validate_on_this_machine(const validate::Suite& suite, MeasureOptions options,
                                           const std::optional<std::string>& profile,
                                           std::optional<validate::ModelError> error) {
  std::vector<LoadedScenario> scenarios = load_suite_scenarios(suite);
  if (options.real_cluster) {
    // On the real cluster: each scenario's cluster the one measured there.
    for (LoadedScenario& loaded : scenarios) {
      loaded.text = with_cluster(loaded.text, loaded.file, options.real_cluster->cluster_text,
                                 options.real_cluster->cluster_file);
      loaded.scenario = parse_scenario(loaded.text, loaded.file);
    }
  }
  // Without a profile, this machine's costs are measured before the runs and
  // after each round of them, and each run is simulated with those around its
  // round: the machine's speed drifts over minutes. Never from the runs themselves.
  MachineValidation out;
  options.calibrate = !profile;
  CostProfile fixed;
  if (profile) {
    fixed = load_cost_profile(*profile);  // a bad profile stops us before any run
    out.profile_source = *profile;
  } else {
    out.profile_source = "calibrated before the runs and after each round of them";
  }
  MeasuredSuite measured = measure_suite(scenarios, options);
  if (options.calibrate) out.calibration = measured.calibration;
  out.judged = compare_measured(std::move(scenarios), std::move(measured), fixed, error);
  if (options.real_cluster) {
    // So that `validate --measured` simulates them on the same cluster.
    for (auto& c : out.judged.comparisons) c.cluster = options.real_cluster->cluster_text;
  }
  const auto& rows = out.judged.comparisons;
  if (std::any_of(rows.begin(), rows.end(), [](const validate::Comparison& c) { return !c.steady; })) {
    out.machine_load = machine_load();
  }
  return out;
}

Recorded judge_recorded(const std::string& file, const validate::Suite& suite, bool suite_given,
                        std::optional<validate::ModelError> error) {
  const validate::Measurements measurements = validate::load_measurements(file);
  Recorded out{compare_again(measurements, suite, error), suite};
  if (!suite_given) {
    out.judged_by.thresholds = measurements.thresholds;
    out.judged_by.thresholds_source = file;
  }
  return out;
}

std::string machine_load() {
  std::ifstream in("/proc/loadavg");
  double one = -1, five = -1;
  in >> one >> five;
  if (one < 0) return "the machine's load is unknown (no /proc/loadavg)";
  return fmt::format("the machine's load average: {:.2f} over the last minute, {:.2f} over five, on {} CPUs", one,
                     five, std::thread::hardware_concurrency());
}

ValidationRun run_validation(const validate::Suite& suite, const std::optional<std::string>& measured_file,
                             bool suite_given, const MeasureOptions& options, const std::optional<std::string>& profile,
                             std::optional<validate::ModelError> error) {
  ValidationRun run;
  run.judged_by = suite;
  std::string load;  // the machine's, when measured here
  if (measured_file) {
    Recorded recorded = judge_recorded(*measured_file, suite, suite_given, error);
    run.comparisons = std::move(recorded.comparisons);
    run.judged_by = std::move(recorded.judged_by);
    run.profile_source = fmt::format("the costs recorded in {}", *measured_file);
  } else {
    MachineValidation done = validate_on_this_machine(suite, options, profile, error);
    run.comparisons = std::move(done.judged.comparisons);
    load = std::move(done.machine_load);
    run.profile_source = std::move(done.profile_source);
    run.calibration = std::move(done.calibration);
  }
  if (error) run.profile_source += fmt::format("; the model with a deliberate error: {}", validate::to_string(*error));
  run.verdict = validate::judge(run.comparisons, run.judged_by.thresholds);
  if (!load.empty() && !run.verdict.unjudged.empty()) {
    run.verdict.unjudged.push_back(load);
    if (!run.verdict.no_verdict.empty()) run.verdict.no_verdict.push_back(load);
  }
  return run;
}

}  // namespace exsim::workflows
