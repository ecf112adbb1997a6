// exsim simulate SCENARIO [--policy NAME]... [-o RESULTS.json] [--set KEY=VALUE]... [--trace FILE]
#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/results_table.h"
#include "cli/sensitivity_table.h"
#include "cli/trace_options.h"
#include "cli/workflows/cost_ranges.h"
#include "cli/workflows/parallel.h"
#include "cli/workflows/progress.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/results/trace.h"
#include "models/results/report_input.h"
#include "models/scenario/costs.h"
#include "models/scenario/scenario_loader.h"
#include "sim/engine/scheduler.h"
#include "sim/simulate.h"
#include "validate/validated_region.h"

namespace exsim::cli {
namespace po = boost::program_options;

int simulate_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim simulate SCENARIO [--policy NAME]... [-o RESULTS.json] [--set KEY=VALUE]... [--jobs N]\n"
      "                      [--scheduler NAME] [--trace FILE [--trace-events N]]\n\n"
      "Simulates every policy of SCENARIO (or those named) and prints one row per policy:\n"
      "wall-clock, TransmitData RPCs, bytes on the wire, mean uncompressed batch, and the\n"
      "largest per-host sender memory (observed peak, static expected and worst case),\n"
      "with deltas against the first policy. Sizes are per host, summed over the host's\n"
      "sender instances.\n\n"
      "examples:\n"
      "  exsim simulate scenarios/default.json\n"
      "  exsim simulate scenarios/default.json --set mt_dop=8 --policy 16K --policy budget-4M -o - | jq .\n"
      "  exsim simulate scenario.json --trace trace.json   (open it in https://ui.perfetto.dev)\n\n"
      "Exit status: 0 done, 2 bad input (the scenario, its costs profile, a flag), 3 a failure.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("policy,p", po::value<std::vector<std::string>>()->value_name("NAME")->composing(), "simulate only this policy (repeatable)")
      ("set,s", po::value<std::vector<std::string>>()->value_name("KEY=VALUE")->composing(),
       "override a scenario value by its dotted path, e.g. mt_dop=8, policies.16K.in_flight=2,\n"
       "policies.*.buffer.flat=64K (repeatable)")
      ("jobs,j", po::value<int>(), "policies simulated at once (default: the CPUs this process may use; one at a "
       "time with --trace); the results are the same")
      ("range", "also simulate each policy with every cost at the cheap and at the dear end of the costs\n"
       "profile's spread (calibrate writes one): the wall-clock's range, and whether the fastest\n"
       "policy stays the fastest")
      ("cost-spread", po::value<double>()->value_name("PERCENT"), "as --range, every cost moved by PERCENT either way "
       "instead (a profile without a spread)")
      ("sensitivity", "as --range, and each cost alone at both ends of its range: which costs move each policy the\n"
       "most, and which change which policy is the fastest (with --cost-spread, PERCENT either way;\n"
       "a cost at 0 over its profile's range)")
      ("validation", po::value<std::string>()->value_name("FILE"), "widen the range by the model's median wall-clock "
       "error in this validation\n(exsim validate -o FILE), and say when the fastest leads by less")
      ("scheduler", po::value<std::string>()->value_name("NAME")->default_value("calendar"),
       fmt::format("event queue: {}", sim::kSchedulerNames).c_str());
  add_results_option(visible, "the results (spec results format, an array)");
  add_trace_options(visible);
  const auto parsed = parse_command_line(args, visible, "scenario");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const std::string scenario_file = single_positional(vm, "scenario", "SCENARIO (a scenario JSON file)");

  OutputFiles outputs;
  const auto results_file = results_option(vm);
  if (results_file) outputs.writes(results_file->flag, results_file->path, OutputFormat::kJson);
  const auto trace_events = trace_budget(vm, outputs);
  Trace trace(trace_events.value_or(Trace::kDefaultMaxEvents));
  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  const Scenario scenario = load_scenario(scenario_file, overrides);
  reads_scenario(outputs, scenario);
  std::vector<std::string> names;
  if (vm.count("policy")) names = vm["policy"].as<std::vector<std::string>>();
  const auto policies = select_policies(scenario, names);
  if (vm.count("validation")) outputs.reads(vm["validation"].as<std::string>());
  outputs.check();

  // The costs' ends, simulated beside each policy (--range, --cost-spread).
  double relative = 0;
  if (vm.count("cost-spread")) {
    const double percent = vm["cost-spread"].as<double>();
    if (!(percent > 0 && percent < 100)) {
      throw UsageError(fmt::format("--cost-spread {}: expected a percentage above 0 and below 100", percent));
    }
    relative = percent / 100;
  }
  const bool sensitive = vm.count("sensitivity") > 0;
  const bool ranged = vm.count("range") || relative > 0 || sensitive;
  // The model's error against the real exchange, from a validation's verdict.
  double model_error = 0;
  std::string validation_file;
  if (vm.count("validation")) {
    validation_file = vm["validation"].as<std::string>();
    const report::ReportInput validation = report::read_report_input({validation_file});
    if (validation.verdicts.empty() || validation.verdicts.front().outcome == "no verdict") {
      throw UsageError(fmt::format("--validation {}: expected the results of exsim validate with a verdict "
                                   "(its median wall-clock error)",
                                   validation_file));
    }
    model_error = validation.verdicts.front().wall_median_error;
  }
  if (ranged && !has_cost_uncertainty(scenario.costs, relative)) {
    throw UsageError(fmt::format("--range: the costs profile ({}) has no spread (exsim calibrate writes one); "
                                 "give --cost-spread PERCENT instead",
                                 scenario.costs.source));
  }

  SimulateOptions options;
  options.scheduler = vm["scheduler"].as<std::string>();
  if (!sim::make_scheduler(options.scheduler)) {
    throw UsageError(fmt::format("--scheduler {}: expected {}", options.scheduler, sim::kSchedulerNames));
  }
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int all_jobs = vm.count("jobs") ? bounded_int(vm, "jobs", 1, 1024) : cpus;
  const int jobs = std::min(all_jobs, static_cast<int>(policies.size()));
  // A bar on a terminal; elsewhere a line per policy once the run has taken a
  // second (a quick run prints nothing).
  workflows::Progress progress("policies", policies.size());
  const auto started = std::chrono::steady_clock::now();
  auto finished = [&](const Policy& policy) {
    if (std::chrono::steady_clock::now() - started > std::chrono::seconds(1)) {
      progress.done(policy.name);
    } else {
      progress.advance();
    }
  };
  std::vector<RunResult> results(policies.size());
  if (jobs <= 1 || trace_events) {
    // One at a time: one trace, each policy's hosts its own processes in it.
    options.progress = [&](double fraction) { progress.partial(fraction); };
    for (std::size_t i = 0; i < policies.size(); ++i) {
      if (trace_events) {
        options.trace = &trace;
        options.trace_pid_base = static_cast<int>(i * scenario.cluster.hosts.size());
      }
      results[i] = simulate(scenario, policies[i], options);
      finished(policies[i]);
    }
  } else {
    // Policies on `jobs` threads, each result in its policy's place: the same
    // results as one at a time (each simulation is its own, seeded alike).
    const std::exception_ptr failure = workflows::for_each_parallel(policies.size(), jobs, [&](std::size_t i) {
      results[i] = simulate(scenario, policies[i], options);
      finished(policies[i]);
    });
    if (failure) std::rethrow_exception(failure);
  }
  progress.finish();
  if (ranged || model_error > 0) {
    for (auto& r : results) r.wall_range = {r.wall_s, r.wall_s, "", 0};
  }
  if (ranged) {
    workflows::CostRangeOptions ranges;
    ranges.relative = relative;
    ranges.jobs = all_jobs;
    ranges.scheduler = options.scheduler;
    const std::size_t count = 2 * policies.size() +
                              (sensitive ? workflows::sensitivity_simulations(scenario, policies.size(), relative) : 0);
    workflows::Progress ranging("simulations of the costs' ends", count);
    std::mutex lock;
    ranges.simulated = [&] {
      const std::lock_guard<std::mutex> guard(lock);
      ranging.advance();
    };
    workflows::simulate_cost_corners(scenario, policies, results, ranges);
    if (sensitive) workflows::simulate_cost_sensitivity(scenario, policies, results, ranges);
    ranging.finish();
  }
  if (model_error > 0) {
    for (auto& r : results) {
      r.wall_range.cheap_s *= 1 - model_error;
      r.wall_range.dear_s *= 1 + model_error;
      r.wall_range.model_error = model_error;
      r.wall_range.from += fmt::format("{}the model's median wall-clock error of {:.1f}% in {}",
                                       r.wall_range.from.empty() ? "" : ", widened by ", 100 * model_error,
                                       validation_file);
    }
  }

  // How far each prediction lies from where the model was checked.
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const validate::RegionCheck check =
        validate::check_region(validate::region_point(scenario, policies[i]), validate::builtin_region());
    results[i].validated_region = {true, check.inside, check.warning()};
  }
  publish_results(vm, outputs,
                  fmt::format("{} ({} hosts, mt_dop {}, costs: {})", scenario.name, scenario.cluster.hosts.size(),
                              scenario.mt_dop, scenario.costs.source),
                  scenario, policies, results, trace_events, trace, "simulated: " + scenario.name);
  if (sensitive) fmt::print(outputs.to_stdout() ? stderr : stdout, "{}", render_sensitivity(results));
  return kExitOk;
}

}  // namespace exsim::cli
