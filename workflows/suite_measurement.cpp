#include "workflows/suite_measurement.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "workflows/calibration.h"
#include "models/base/error.h"
#include "transport/agent/coordinator.h"
#include "transport/agent/measurable.h"
#include "transport/testbed/call_probe.h"
#include "transport/testbed/cpu_set.h"
#include "transport/testbed/probe_limits.h"
#include "transport/testbed/speed_probe.h"
#include "validate/run_schedule.h"

namespace exsim::workflows {
namespace {

double median_of(std::vector<double> values) { return values.empty() ? 0 : spread_of(std::move(values)).median; }

// The speed and call cost a calibration's costs were measured at.
validate::MachineProbes probes_of(const transport::CalibrationSamples& samples) {
  return {median_of(samples.probes_us), median_of(samples.call_probes_us)};
}

RunResult run_policy(const LoadedScenario& loaded, const Policy& policy, const MeasureOptions& measure) {
  transport::RunOptions options;
  options.scenario_file = loaded.file;
  options.scenario_text = loaded.text;
  options.policies = {policy.name};
  options.delay_line = !measure.real_cluster;
  options.nic_cap = !measure.real_cluster;
  options.timeout = measure.timeout;
  options.exsim_binary = "/proc/self/exe";
  if (measure.real_cluster) {
    options.hosts_file = measure.real_cluster->hosts_file;
    options.token = measure.real_cluster->token;
    options.spare_agents_ok = true;
    options.hold_cores_awake = measure.real_cluster->hold_cores_awake;
    options.probe_speed = !measure.real_cluster->speed_probe_us.empty();
  }
  return std::move(transport::run_on_agents(loaded.scenario, options).at(0));
}

// One run of a policy, between two speed probes and two call probes, into
// `result` and `probes`: true when the probes can say how fast the machine
// ran against `costs`' (unscalable) and the CPU was ours; else said on stderr,
// and false.
bool run_steady(const LoadedScenario& loaded, const Policy& policy, const MeasureOptions& options,
                const validate::MachineProbes& costs, transport::CallProbe& calls, RunResult& result,
                validate::MachineProbes& probes) {
  if (options.real_cluster) {
    result = run_policy(loaded, policy, options);
    // Judged, but said: the model has the cores awake.
    if (const std::string sleepy = cores_not_held(result); !sleepy.empty()) {
      fmt::print(stderr, "validate: {}: {}: {}: its calls paid the cores' wake-ups, which the model does not have\n",
                 loaded.file, policy.name, sleepy);
    }
    const ClusterSpeed speed = cluster_speed(result, options.real_cluster->speed_probe_us);
    // The hosts together, as one machine's probe: the costs are one profile for them all.
    probes.speed_us = speed.slowdown * costs.speed_us;
    std::string why = speed.unscalable;
    if (result.unsteady()) {
      why = fmt::format("a stall of {:.1f} s in {}", result.longest_stall.seconds, result.longest_stall.where);
    }
    if (why.empty()) return true;
    fmt::print(stderr, "validate: {}: {}: {}: set aside\n", loaded.file, policy.name, why);
    return false;
  }
  const transport::CoreShare share;
  const double before = transport::probe_speed_us();
  const double calls_before = calls.probe_us();
  RunResult run = run_policy(loaded, policy, options);
  const double calls_after = calls.probe_us();
  const double after = transport::probe_speed_us();
  probes = {(before + after) / 2, (calls_before + calls_after) / 2};
  const double others = share.others_share(run.agents_process_cpu_s());
  std::string why =
      transport::unscalable(before, after, costs.speed_us, transport::speed_deviation(before, after, costs.speed_us),
                            transport::kSpeedProbeLimits, "the machine's speed");
  if (why.empty()) {
    // Only dearer calls stray: a cheap probe is one the scheduler did not delay.
    why = transport::unscalable(calls_before, calls_after, costs.calls_us,
                                transport::call_slowdown(calls_before, calls_after, costs.calls_us),
                                transport::kCallProbeLimits, "calls between processes");
  }
  if (why.empty() && others > transport::kOthersShare) {
    why = fmt::format("other processes took {:.0f}% of the CPU it ran on", 100 * others);
  } else if (why.empty() && run.unsteady()) {
    why = fmt::format("a stall of {:.1f} s in {} (transport/net/stall_watch.h)", run.longest_stall.seconds,
                      run.longest_stall.where);
  }
  result = std::move(run);
  if (why.empty()) return true;
  fmt::print(stderr, "validate: {}: {}: {}: set aside\n", loaded.file, policy.name, why);
  return false;
}

}  // namespace

ClusterSpeed cluster_speed(const RunResult& run, const std::vector<double>& reference_us) {
  ClusterSpeed out;
  double probed = 0, calibrated = 0;
  for (std::size_t h = 0; h < run.hosts.size() && h < reference_us.size(); ++h) {
    const HostResult& host = run.hosts[h];
    const double before = host.speed_probe_before_us, after = host.speed_probe_after_us, reference = reference_us[h];
    if (reference <= 0 || before < 0 || after < 0) continue;
    const std::string why =
        transport::unscalable(before, after, reference, transport::speed_deviation(before, after, reference),
                              transport::kSpeedProbeLimits, ("host " + host.name + "'s speed").c_str());
    if (!why.empty() && out.unscalable.empty()) out.unscalable = why;
    probed += (before + after) / 2;
    calibrated += reference;
  }
  if (calibrated > 0) out.slowdown = probed / calibrated;
  return out;
}

RoundCosts choose_round_costs(const transport::CalibrationSamples& before, const transport::CalibrationSamples& after,
                              const validate::MachineProbes& start) {
  transport::CalibrationSamples around = before;
  around.append(after);
  const transport::Calibration both = transport::summarize_costs(around);
  const transport::Calibration alone = transport::summarize_costs(before);
  const transport::Calibration after_alone = transport::summarize_costs(after);
  // Both together only when each was steady on its own (then so are they
  // together): a majority of their repetitions together could all be one's.
  const bool both_steady = !alone.too_noisy && !after_alone.too_noisy;
  // The costs hold for the round's runs only if the machine kept its speed
  // from the calibration before the round to the one after it.
  const double drift =
      after.probes_us.empty() || start.speed_us <= 0 ? 0 : std::abs(median_of(after.probes_us) / start.speed_us - 1);
  if (both_steady && drift <= transport::kSteadySpeed) return {both.profile, probes_of(around), false, ""};
  const std::string why_not_both = !both_steady ? std::string("the calibration after it was too noisy")
                                                : fmt::format("the machine's speed changed by {:.0f}% over it",
                                                              100 * drift);
  // The one before, to which every steady run was held (in a busy spell, two
  // rounds in a row lost 11 and 9 steady runs to the calibration after them).
  if (!alone.too_noisy) {
    return {alone.profile, start, false, why_not_both + ": its runs take the costs of the calibration before it alone"};
  }
  // The one after: each run's probes say how fast its machine ran, against
  // these as against any, unless the machine had moved further than costs
  // are moved (a CI machine lost a round's 17 steady runs, and the gate its
  // verdict, to a noisy calibration before them).
  if (!after_alone.too_noisy && drift <= transport::kScalableSlowdown) {
    return {after_alone.profile, probes_of(after), false,
            "the calibration before it was too noisy: its runs take the costs of the calibration after it alone"};
  }
  return {both.profile, probes_of(around), true,
          after_alone.too_noisy ? std::string("the calibrations before and after it were too noisy")
                                : fmt::format("the calibration before it was too noisy, and the machine's speed "
                                              "changed by {:.0f}% by the one after it",
                                              100 * drift)};
}

MeasuredSuite measure_suite(const std::vector<LoadedScenario>& scenarios, const MeasureOptions& options) {
  // Every scenario the real exchange cannot run, refused before any runs.
  std::vector<std::string> problems;
  for (const auto& loaded : scenarios) {
    for (auto& p : transport::unmeasurable(loaded.scenario.policies, loaded.file)) problems.push_back(std::move(p));
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  MeasuredSuite suite;
  suite.scenarios.resize(scenarios.size());
  std::vector<std::size_t> policy_counts;
  for (const auto& loaded : scenarios) policy_counts.push_back(loaded.scenario.policies.size());
  validate::RunSchedule schedule(policy_counts, options.repeat, options.time_limit);
  transport::CallProbe calls;
  transport::CalibrationSamples before;
  if (options.calibrate) {
    before = measure_with_progress(options.repetitions, 1.0);
    suite.calibration = before;
  }
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const std::vector<validate::PolicyIndex> round_runs = schedule.next_round(std::chrono::steady_clock::now() - start);
    if (round_runs.empty()) break;
    const int round = schedule.round();
    // Runs are held to the speed and call cost of the calibration before the
    // round, or of the round's start with a fixed profile (on a cluster, to
    // each host's own speed instead: run_steady).
    validate::MachineProbes at_start;
    if (options.real_cluster) {
      // Its hosts' speeds at their calibration, summed: a run's own sum over
      // them moves the costs (cluster_speed); no call probes there.
      for (double reference : options.real_cluster->speed_probe_us) at_start.speed_us += std::max(0.0, reference);
    } else {
      at_start = options.calibrate ? probes_of(before) : validate::MachineProbes{};
      if (at_start.speed_us <= 0) at_start.speed_us = transport::speed_now_us();
      if (at_start.calls_us <= 0) at_start.calls_us = calls.usual_us();
    }
    for (const validate::PolicyIndex& index : round_runs) {
      const LoadedScenario& loaded = scenarios[index.scenario];
      const Policy& policy = loaded.scenario.policies[index.policy];
      fmt::print(stderr, "validate: {}: {} on the real exchange (round {}, {} of {})\n", loaded.file, policy.name,
                 round + 1, schedule.runs(index).steady.size() + 1, options.repeat);
      RunResult run;
      validate::MachineProbes probes;
      const bool steady = run_steady(loaded, policy, options, at_start, calls, run, probes);
      schedule.record(index, std::move(run), steady, probes);
    }
    if (!options.calibrate) {
      suite.round_probes.push_back(at_start);
      continue;
    }
    const transport::CalibrationSamples after = measure_with_progress(options.repetitions, 1.0);
    suite.calibration.append(after);
    const RoundCosts costs = choose_round_costs(before, after, at_start);
    before = after;
    suite.round_costs.push_back(costs.profile);
    suite.round_probes.push_back(costs.probes);
    if (costs.set_aside) {
      const int moved = schedule.set_aside_round(round);
      fmt::print(stderr, "validate: round {}: {}: its {} steady run(s) are set aside\n", round + 1, costs.note, moved);
    } else if (!costs.note.empty()) {
      fmt::print(stderr, "validate: round {}: {}\n", round + 1, costs.note);
    }
  }
  if (schedule.stopped_by_time_limit()) {
    fmt::print(stderr, "validate: the time limit of {} s passed with runs still to make again: no further round\n",
               options.time_limit.count());
  }
  for (std::size_t s = 0; s < scenarios.size(); ++s) {
    const auto& policies = scenarios[s].scenario.policies;
    MeasuredScenario& out = suite.scenarios[s];
    for (std::size_t p = 0; p < policies.size(); ++p) {
      validate::PolicyRuns& r = schedule.runs({s, p});
      std::string why;
      if (!schedule.judgeable({s, p})) {
        why = fmt::format("{} of {} runs {}, fewer than the {} a verdict needs", r.steady.size(), r.tries,
                          options.real_cluster ? "steady on the cluster (no stall, each host at its calibrated speed)"
                                               : "on a steady machine (its speed held, its CPU its own)",
                          validate::steady_runs_for_verdict(options.repeat));
      } else if (schedule.short_of_runs({s, p})) {
        fmt::print(stderr, "validate: {}: {}: judged on {} steady runs of {} asked ({} tries)\n", scenarios[s].file,
                   policies[p].name, r.steady.size(), options.repeat, r.tries);
      }
      out.unjudged.push_back(std::move(why));
      out.runs.push_back(std::move(r.steady));
      out.set_aside.push_back(std::move(r.set_aside));
    }
  }
  return suite;
}

}  // namespace exsim::workflows
