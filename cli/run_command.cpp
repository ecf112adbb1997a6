// exsim run SCENARIO [--policy NAME]... [-o OUT] [--set KEY=VALUE]... [--hosts FILE | --pin-hosts]

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "transport/agent/token_file.h"
#include "cli/commands.h"
#include "cli/cpu_options.h"
#include "cli/output_files.h"
#include "cli/results_table.h"
#include "cli/trace_options.h"
#include "models/base/error.h"
#include "models/results/trace.h"
#include "models/scenario/scenario_loader.h"
#include "transport/agent/coordinator.h"
#include "transport/agent/measurable.h"
#include "transport/testbed/cpu_set.h"

namespace exsim::cli {
namespace po = boost::program_options;
namespace {

// `cpus` split into `hosts` runs of equal length in order, the remainder left
// unused so that no host has more cores than another.
std::vector<std::vector<int>> host_cpu_shares(const std::vector<int>& cpus, std::size_t hosts) {
  if (cpus.size() < hosts) {
    throw UsageError(fmt::format("--pin-hosts: the scenario's {} hosts need a CPU each; this process may use {} ({})",
                                 hosts, cpus.size(), transport::cpu_list_text(cpus)));
  }
  const std::size_t each = cpus.size() / hosts;
  std::vector<std::vector<int>> shares(hosts);
  for (std::size_t h = 0; h < hosts; ++h) shares[h].assign(cpus.begin() + h * each, cpus.begin() + (h + 1) * each);
  return shares;
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim run SCENARIO [--policy NAME]... [-o OUT] [--set KEY=VALUE]... [--hosts FILE --token-file F]\n"
      "                 [--no-delay-line] [--nic-cap] [--pin-hosts] [--timeout S] [--trace FILE [--trace-events N]]\n\n"
      "Runs every policy of SCENARIO (or those named) on the real exchange and prints the\n"
      "same table as `simulate`, measured. By default it starts one `exsim agent` process\n"
      "per scenario host on this machine, on loopback, and imposes the scenario's RTTs with\n"
      "delay lines; with --hosts it uses agents already running elsewhere.\n\n"
      "examples:\n"
      "  exsim run scenarios/default.json --policy 16K --policy 128K -o measured.json\n"
      "  exsim run scenario.json --hosts hosts.txt --token-file token --no-delay-line\n\n"
      "Exit status: 0 done, 2 bad input (the scenario, a flag, the hosts file), 3 a failed run\n"
      "(an agent failed or an exchange passed --timeout).\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("policy,p", po::value<std::vector<std::string>>()->value_name("NAME")->composing(), "run only this policy (repeatable)")
      ("set,s", po::value<std::vector<std::string>>()->value_name("KEY=VALUE")->composing(), "override a scenario value by its dotted path")
      ("hosts", po::value<std::string>()->value_name("FILE"), "agents already running: one ADDRESS:PORT line per scenario host")
      ("token-file", po::value<std::string>()->value_name("FILE"), "with --hosts: file holding the agents' shared token")
      ("no-delay-line", "do not impose the scenario's RTTs (real hosts)")
      ("nic-cap", "cap each host's bandwidth at the scenario's nic_gbps, each way (token buckets)")
      ("pin-hosts", "run each local agent on CPUs of its own, as separate machines' cores: this process's CPUs split evenly among the hosts (at least one each)")
      ("timeout", po::value<int>()->value_name("SECONDS")->default_value(600), "seconds each exchange may take before the run fails");
  add_let_cores_sleep_option(visible);
  add_results_option(visible, "the results (source \"measured\")");
  add_trace_options(visible);
  const auto parsed = parse_command_line(args, visible, "scenario");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const std::string scenario_file = single_positional(vm, "scenario", "SCENARIO (a scenario JSON file)");
  OutputFiles outputs;
  const auto results_file = results_option(vm);
  if (results_file) outputs.writes(results_file->flag, results_file->path, OutputFormat::kJson);
  transport::RunOptions options;
  const auto trace_events = trace_budget(vm, outputs);
  Trace trace(trace_events.value_or(Trace::kDefaultMaxEvents));
  if (trace_events) {
    options.trace = &trace;
    options.trace_events = *trace_events;
  }
  options.scenario_file = scenario_file;
  if (vm.count("set")) options.overrides = vm["set"].as<std::vector<std::string>>();
  // Read once: the agents get the very text this coordinator validated.
  options.scenario_text = read_scenario_file(options.scenario_file);
  const Scenario scenario = parse_scenario(options.scenario_text, options.scenario_file, options.overrides);
  std::vector<std::string> names;
  if (vm.count("policy")) names = vm["policy"].as<std::vector<std::string>>();
  const std::vector<Policy> policies = select_policies(scenario, names);
  transport::require_measurable(policies, scenario_file);
  for (const auto& p : policies) options.policies.push_back(p.name);
  options.delay_line = !vm.count("no-delay-line");
  options.nic_cap = vm.count("nic-cap") > 0;
  options.timeout = std::chrono::seconds(bounded_int(vm, "timeout", 1, 86400));
  options.exsim_binary = "/proc/self/exe";
  options.hold_cores_awake = hold_cores_awake(vm);
  if (vm.count("hosts")) {
    options.hosts_file = vm["hosts"].as<std::string>();
    if (!vm.count("token-file")) throw UsageError("--hosts needs --token-file (the agents' token)");
    options.token = transport::read_token_file(vm["token-file"].as<std::string>());
  } else if (vm.count("token-file")) {
    throw UsageError("--token-file applies only with --hosts FILE (agents already running)");
  }
  if (vm.count("pin-hosts")) {
    if (vm.count("hosts")) throw UsageError("--pin-hosts applies to local agents only; start remote agents with --cpus");
    options.host_cpus = host_cpu_shares(transport::allowed_cpus(), scenario.cluster.hosts.size());
  }
  reads_scenario(outputs, scenario);
  for (const char* flag : {"hosts", "token-file"}) {
    if (vm.count(flag)) outputs.reads(vm[flag].as<std::string>());
  }
  outputs.check();
  const auto results = transport::run_on_agents(scenario, options);
  publish_results(vm, outputs,
                  fmt::format("{} ({} hosts, mt_dop {}, measured{}{})", scenario.name, scenario.cluster.hosts.size(),
                              scenario.mt_dop, options.delay_line ? ", RTTs imposed by delay lines" : "",
                              options.host_cpus.empty() ? "" : ", each host on CPUs of its own"),
                  scenario, policies, results, trace_events, trace, "measured: " + scenario.name);
  if (const std::string sleepy = results.empty() ? "" : cores_not_held(results.front()); !sleepy.empty()) {
    fmt::print(stderr,
               "warning: {}: a call or ping that found a core asleep waited for it to wake, which the model does not "
               "have (run the agents as root, or see docs/validation.md, \"Sleeping cores, held awake\")\n",
               sleepy);
  }
  for (const RunResult& r : results) {
    if (!r.unsteady()) continue;
    fmt::print(stderr,
               "warning: {}: unsteady: a stall of {:.1f} s (over {} s) in {}. The model knows no cause for it: this "
               "wall-clock is not the exchange's, and validate would set the run aside\n",
               r.policy, r.longest_stall.seconds, kUnsteadyStallS, r.longest_stall.where);
  }
  return kExitOk;
}

}  // namespace exsim::cli
