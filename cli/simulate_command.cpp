// exsim simulate SCENARIO [--policy NAME]... [-o RESULTS.json] [--set KEY=VALUE]... [--trace FILE]
#include <algorithm>
#include <cstdio>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/results_table.h"
#include "cli/sensitivity_table.h"
#include "cli/trace_options.h"
#include "models/base/error.h"
#include "models/results/report_input.h"
#include "models/results/trace.h"
#include "models/scenario/costs.h"
#include "models/scenario/scenario_loader.h"
#include "sim/engine/scheduler.h"
#include "workflows/policy_simulations.h"

namespace exsim::cli {
namespace po = boost::program_options;

int simulate_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim simulate SCENARIO [--policy NAME]... [-o RESULTS.json] [--set KEY=VALUE]... [--jobs N]\n"
      "                      [--exact] [--scheduler NAME] [--trace FILE [--trace-events N]]\n\n"
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
      ("exact", "simulate every exchange to its last row; by default an exchange of many calls a channel\n"
       "is simulated shortened and its steady middle lengthened to the whole rows where checks say\n"
       "that is exact, its calls and bytes counted in full (docs/simulator.md, Fast-forward), and an\n"
       "exchange that runs alone is taken from another policy's simulation where it is the same run")
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

  workflows::PolicySimulations request;
  request.scheduler = vm["scheduler"].as<std::string>();
  request.exact = vm.count("exact") > 0;
  if (!sim::make_scheduler(request.scheduler)) {
    throw UsageError(fmt::format("--scheduler {}: expected {}", request.scheduler, sim::kSchedulerNames));
  }
  request.jobs = vm.count("jobs") ? bounded_int(vm, "jobs", 1, 1024)
                                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (trace_events) request.trace = &trace;
  request.ranges = ranged;
  request.sensitivity = sensitive;
  request.cost_spread = relative;
  request.model_error = model_error;
  request.model_error_from = validation_file;
  const std::vector<RunResult> results = workflows::simulate_policies(scenario, policies, request);
  publish_results(vm, outputs,
                  fmt::format("{} ({} hosts, mt_dop {}, costs: {})", scenario.name, scenario.cluster.hosts.size(),
                              scenario.mt_dop, scenario.costs.source),
                  scenario, policies, results, trace_events, trace, "simulated: " + scenario.name);
  if (sensitive) fmt::print(outputs.to_stdout() ? stderr : stdout, "{}", render_sensitivity(results));
  return kExitOk;
}

}  // namespace exsim::cli
