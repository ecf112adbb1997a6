#include "cli/validate_measure.h"

#include <algorithm>

#include <fmt/format.h>

#include "cli/calibration_report.h"
#include "transport/agent/coordinator.h"
#include "transport/testbed/cpu_set.h"
#include "transport/testbed/speed_probe.h"

namespace exsim::cli {
namespace {

double median_of(std::vector<double> values) { return spread_of(std::move(values)).median; }

// The speed now: the median of three probes.
double speed_now_us() {
  return median_of({transport::probe_speed_us(), transport::probe_speed_us(), transport::probe_speed_us()});
}

// The agents' CPU over their lives, start-up included.
double agents_cpu_s(const RunResult& run) {
  double cpu = 0;
  for (const auto& h : run.hosts) cpu += std::max(0.0, h.process_cpu_s);
  return cpu;
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

// Runs every policy `repeat` times, interleaved (a drift of the machine's
// speed then touches every policy alike), each between two speed probes; a run
// whose probes stray from `reference_us` is made again, up to `repeat` more
// times per policy. Keeps each policy's steady run of median wall-clock.
void measure_runs(const LoadedScenario& loaded, const MeasureOptions& options, MeasuredScenario& out) {
  const auto& policies = loaded.scenario.policies;
  std::vector<std::vector<RunResult>> steady(policies.size());
  std::vector<int> tries(policies.size(), 0);
  for (int round = 0; round < 2 * options.repeat; ++round) {
    bool any = false;
    for (std::size_t p = 0; p < policies.size(); ++p) {
      if (static_cast<int>(steady[p].size()) >= options.repeat || tries[p] >= 2 * options.repeat) continue;
      any = true;
      ++tries[p];
      fmt::print(stderr, "validate: {}: {} on the real exchange ({} of {})\n", loaded.file, policies[p].name,
                 steady[p].size() + 1, options.repeat);
      const transport::CoreShare share;
      const double before = transport::probe_speed_us();
      RunResult run = run_policy(loaded, policies[p], options.timeout);
      const double after = transport::probe_speed_us();
      const double deviation = transport::speed_deviation(before, after, out.reference_us);
      const double others = share.others_share(agents_cpu_s(run));
      if (deviation > transport::kSteadySpeed || others > transport::kOthersShare) {
        ++out.runs_set_aside;
        fmt::print(stderr, "validate: {}: {}: {}: set aside\n", loaded.file, policies[p].name,
                   deviation > transport::kSteadySpeed
                       ? fmt::format("the machine's speed strayed {:.0f}% from the calibration's during the run "
                                     "(probes {:.0f} and {:.0f} us against {:.0f})",
                                     100 * deviation, before, after, out.reference_us)
                       : fmt::format("other processes took {:.0f}% of the CPU it ran on", 100 * others));
        continue;
      }
      steady[p].push_back(std::move(run));
    }
    if (!any) break;
  }
  for (std::size_t p = 0; p < policies.size(); ++p) {
    auto& runs = steady[p];
    if (static_cast<int>(runs.size()) < options.repeat) {
      out.unsteady += fmt::format("{}{}: {} of {} runs on a steady machine (its speed held, its CPU its own)",
                                  out.unsteady.empty() ? "" : "; ", policies[p].name, runs.size(), tries[p]);
    }
    if (runs.empty()) {
      out.runs.push_back(RunResult{});  // no steady run: the scenario gets no verdict
      continue;
    }
    std::sort(runs.begin(), runs.end(), [](const RunResult& a, const RunResult& b) { return a.wall_s < b.wall_s; });
    out.runs.push_back(std::move(runs[runs.size() / 2]));
  }
}

}  // namespace

std::vector<MeasuredScenario> measure_scenarios(const std::vector<LoadedScenario>& scenarios,
                                                const MeasureOptions& options) {
  std::vector<MeasuredScenario> measured;
  transport::CalibrationSamples bracket;
  if (options.calibrate) bracket = measure_with_progress(options.repetitions, 1.0);
  for (const auto& loaded : scenarios) {
    MeasuredScenario m;
    m.before = bracket;
    m.reference_us = options.calibrate && !bracket.probes_us.empty() ? median_of(bracket.probes_us) : speed_now_us();
    measure_runs(loaded, options, m);
    if (options.calibrate) {
      bracket = measure_with_progress(options.repetitions, 1.0);
      m.after = bracket;
      transport::CalibrationSamples around = m.before;
      around.append(m.after);
      const transport::Calibration costs = transport::summarize_costs(around);
      m.costs = costs.profile;
      // The costs hold for the runs only if the machine kept its speed from the
      // bracket before them to the one after.
      const double after_us = bracket.probes_us.empty() ? m.reference_us : median_of(bracket.probes_us);
      const double drift = std::abs(after_us / m.reference_us - 1);
      if (costs.too_noisy) {
        m.unsteady += fmt::format("{}the calibration around it was too noisy", m.unsteady.empty() ? "" : "; ");
      } else if (drift > transport::kSteadySpeed) {
        m.unsteady += fmt::format("{}the machine's speed changed by {:.0f}% between the calibrations before and after "
                                  "it",
                                  m.unsteady.empty() ? "" : "; ", 100 * drift);
      }
    }
    measured.push_back(std::move(m));
  }
  return measured;
}

}  // namespace exsim::cli
