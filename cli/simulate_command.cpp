// exsim simulate SCENARIO [--policy NAME]... [--json OUT] [--set KEY=VALUE]... [--trace FILE]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/workflows/progress.h"
#include "cli/results_table.h"
#include "cli/trace_options.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/scenario/scenario_loader.h"
#include "models/results/trace.h"
#include "sim/engine/scheduler.h"
#include "sim/simulate.h"

namespace exsim::cli {
namespace po = boost::program_options;

int simulate_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim simulate SCENARIO [--policy NAME]... [--json OUT] [--set KEY=VALUE]...\n"
      "                      [--scheduler NAME] [--trace FILE [--trace-events N]]\n\n"
      "Simulates every policy of SCENARIO (or those named) and prints one row per policy:\n"
      "wall-clock, TransmitData RPCs, bytes on the wire, mean uncompressed batch, and the\n"
      "largest per-host sender memory (observed peak, static expected and worst case),\n"
      "with deltas against the first policy. Sizes are per host, summed over the host's\n"
      "sender instances.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("policy,p", po::value<std::vector<std::string>>()->composing(), "simulate only this policy (repeatable)")
      ("json,o", po::value<std::string>(), "write the results (spec results format, an array) to this file")
      ("set,s", po::value<std::vector<std::string>>()->composing(),
       "override a scenario value by its dotted path, e.g. mt_dop=8, policies.16K.in_flight=2,\n"
       "policies.*.buffer.flat=64K (repeatable)")
      ("scheduler", po::value<std::string>()->default_value("calendar"),
       fmt::format("event queue: {}", sim::kSchedulerNames).c_str());
  add_trace_options(visible);
  const auto parsed = parse_command_line(args, visible, "scenario");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const std::string scenario_file = single_positional(vm, "scenario", "SCENARIO (a scenario JSON file)");

  OutputFiles outputs;
  if (vm.count("json")) outputs.writes("--json", vm["json"].as<std::string>());
  const auto trace_events = trace_budget(vm, outputs);
  Trace trace(trace_events.value_or(Trace::kDefaultMaxEvents));
  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  const Scenario scenario = load_scenario(scenario_file, overrides);
  reads_scenario(outputs, scenario);
  std::vector<std::string> names;
  if (vm.count("policy")) names = vm["policy"].as<std::vector<std::string>>();
  const auto policies = select_policies(scenario, names);
  outputs.check();

  SimulateOptions options;
  options.scheduler = vm["scheduler"].as<std::string>();
  if (!sim::make_scheduler(options.scheduler)) {
    throw UsageError(fmt::format("--scheduler {}: expected {}", options.scheduler, sim::kSchedulerNames));
  }
  // A bar on a terminal when the policies take more than a second; nothing otherwise.
  workflows::Progress progress("policies", policies.size());
  options.progress = [&](double fraction) { progress.partial(fraction); };
  std::vector<RunResult> results;
  for (const auto& policy : policies) {
    if (trace_events) {
      options.trace = &trace;
      options.trace_pid_base = static_cast<int>(results.size() * scenario.cluster.hosts.size());
    }
    results.push_back(simulate(scenario, policy, options));
    progress.advance();
  }
  progress.finish();

  publish_results(vm, outputs,
                  fmt::format("{} ({} hosts, mt_dop {}, costs: {})", scenario.name, scenario.cluster.hosts.size(),
                              scenario.mt_dop, scenario.costs.source),
                  results, trace_events, trace, "simulated: " + scenario.name);
  return kExitOk;
}

}  // namespace exsim::cli
