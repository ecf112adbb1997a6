#include "cli/validate_measure.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "cli/calibration_report.h"
#include "transport/agent/coordinator.h"
#include "transport/testbed/call_probe.h"
#include "transport/testbed/cpu_set.h"
#include "transport/testbed/speed_probe.h"

namespace exsim::cli {
namespace {

double median_of(std::vector<double> values) { return spread_of(std::move(values)).median; }

// The speed now: the median of three probes.
double speed_now_us() {
  return median_of({transport::probe_speed_us(), transport::probe_speed_us(), transport::probe_speed_us()});
}

RunResult run_policy(const LoadedScenario& loaded, const Policy& policy, std::chrono::seconds timeout) {
  transport::RunOptions options;
  options.scenario_file = loaded.file;
  options.scenario_text = loaded.text;
  options.policies = {policy.name};
  options.delay_line = true;
  options.nic_cap = true;
  options.timeout = timeout;
  options.exsim_binary = "/proc/self/exe";
  return std::move(transport::run_on_agents(loaded.scenario, options).at(0));
}

// One run of a policy, between two speed probes and two call probes, into
// `result`: true when the machine held its speed against `reference_us`, its
// calls between processes their usual cost, and the CPU was ours; else said on
// stderr, and false.
bool run_steady(const LoadedScenario& loaded, const Policy& policy, const MeasureOptions& options,
                double reference_us, transport::CallProbe& calls, double usual_calls_us, RunResult& result) {
  const transport::CoreShare share;
  const double before = transport::probe_speed_us();
  const double calls_before = calls.probe_us();
  RunResult run = run_policy(loaded, policy, options.timeout);
  const double calls_after = calls.probe_us();
  const double after = transport::probe_speed_us();
  const double deviation = transport::speed_deviation(before, after, reference_us);
  const double slower_calls = transport::call_slowdown(calls_before, calls_after, usual_calls_us);
  const double others = share.others_share(run.agents_process_cpu_s());
  std::string why;
  if (deviation > transport::kSteadySpeed) {
    why = fmt::format("the machine's speed strayed {:.0f}% from the calibration's during the run "
                      "(probes {:.0f} and {:.0f} us against {:.0f})",
                      100 * deviation, before, after, reference_us);
  } else if (slower_calls > transport::kSteadyCalls) {
    why = fmt::format("calls between processes ran {:.0f}% dearer around the run than their usual {:.1f} us "
                      "(probes {:.1f} and {:.1f} us)",
                      100 * slower_calls, usual_calls_us, calls_before, calls_after);
  } else if (others > transport::kOthersShare) {
    why = fmt::format("other processes took {:.0f}% of the CPU it ran on", 100 * others);
  }
  result = std::move(run);
  if (why.empty()) return true;
  fmt::print(stderr, "validate: {}: {}: {}: set aside\n", loaded.file, policy.name, why);
  return false;
}

// A policy's runs so far.
struct PolicyRuns {
  std::vector<RoundRun> steady;
  std::vector<RoundRun> set_aside;
  int tries = 0;
};

}  // namespace

MeasuredSuite measure_suite(const std::vector<LoadedScenario>& scenarios, const MeasureOptions& options) {
  MeasuredSuite suite;
  suite.scenarios.resize(scenarios.size());
  std::vector<std::vector<PolicyRuns>> runs(scenarios.size());
  for (std::size_t s = 0; s < scenarios.size(); ++s) runs[s].resize(scenarios[s].scenario.policies.size());
  transport::CallProbe calls;
  transport::CalibrationSamples before;
  if (options.calibrate) {
    before = measure_with_progress(options.repetitions, 1.0);
    suite.calibration = before;
  }
  // A round's runs all set aside: the costs around it do not hold for them.
  const auto set_aside_round = [&](int round, const std::string& why) {
    fmt::print(stderr, "validate: round {}: {}: its runs are set aside\n", round + 1, why);
    for (std::size_t s = 0; s < scenarios.size(); ++s) {
      for (PolicyRuns& r : runs[s]) {
        const auto in_round = std::stable_partition(r.steady.begin(), r.steady.end(),
                                                    [&](const RoundRun& run) { return run.round != round; });
        suite.scenarios[s].runs_set_aside += static_cast<int>(r.steady.end() - in_round);
        std::move(in_round, r.steady.end(), std::back_inserter(r.set_aside));
        r.steady.erase(in_round, r.steady.end());
      }
    }
  };
  // Rounds: each runs every policy still short of `repeat` steady runs once.
  // Beyond `repeat` rounds, runs set aside are made again, up to `repeat`
  // more tries per policy.
  for (int round = 0; round < 2 * options.repeat; ++round) {
    const double reference_us = options.calibrate && !before.probes_us.empty() ? median_of(before.probes_us)
                                                                               : speed_now_us();
    // Runs are held to the speed and call cost the costs were calibrated at.
    const double usual_calls_us = options.calibrate && !before.call_probes_us.empty() ? median_of(before.call_probes_us)
                                                                                     : calls.usual_us();
    bool any = false;
    for (std::size_t s = 0; s < scenarios.size(); ++s) {
      const auto& policies = scenarios[s].scenario.policies;
      for (std::size_t p = 0; p < policies.size(); ++p) {
        PolicyRuns& r = runs[s][p];
        if (static_cast<int>(r.steady.size()) >= options.repeat || r.tries >= 2 * options.repeat) continue;
        any = true;
        ++r.tries;
        fmt::print(stderr, "validate: {}: {} on the real exchange (round {}, {} of {})\n", scenarios[s].file,
                   policies[p].name, round + 1, r.steady.size() + 1, options.repeat);
        RunResult run;
        if (run_steady(scenarios[s], policies[p], options, reference_us, calls, usual_calls_us, run)) {
          r.steady.push_back({round, std::move(run)});
        } else {
          r.set_aside.push_back({round, std::move(run)});
          ++suite.scenarios[s].runs_set_aside;
        }
      }
    }
    if (!any) break;
    if (!options.calibrate) continue;
    const transport::CalibrationSamples after = measure_with_progress(options.repetitions, 1.0);
    suite.calibration.append(after);
    transport::CalibrationSamples around = before;
    around.append(after);
    const transport::Calibration costs = transport::summarize_costs(around);
    suite.round_costs.push_back(costs.profile);
    // The costs hold for the round's runs only if the machine kept its speed
    // from the calibration before the round to the one after it.
    const double drift = after.probes_us.empty() ? 0 : std::abs(median_of(after.probes_us) / reference_us - 1);
    before = after;
    if (!costs.too_noisy && drift <= transport::kSteadySpeed) continue;
    set_aside_round(round, costs.too_noisy ? std::string("the calibrations around it were too noisy")
                                           : fmt::format("the machine's speed changed by {:.0f}% over it", 100 * drift));
  }
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const auto& policies = scenarios[s].scenario.policies;
    MeasuredScenario& out = suite.scenarios[s];
    for (std::size_t p = 0; p < policies.size(); ++p) {
      PolicyRuns& r = runs[s][p];
      if (static_cast<int>(r.steady.size()) < options.repeat) {
        out.unsteady += fmt::format("{}{}: {} of {} runs on a steady machine (its speed held, its CPU its own)",
                                    out.unsteady.empty() ? "" : "; ", policies[p].name, r.steady.size(), r.tries);
      }
      out.runs.push_back(std::move(r.steady));
      out.set_aside.push_back(std::move(r.set_aside));
    }
  }
  return suite;
}

}  // namespace exsim::cli
