// exsim simulate SCENARIO [--policy NAME]... [--json OUT] [--set KEY=VALUE]...
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/table.h"
#include "models/error.h"
#include "models/json_reader.h"
#include "models/scenario_loader.h"
#include "sim/simulate.h"

namespace exsim::cli {
namespace po = boost::program_options;
namespace {

std::string percent_delta(double value, double base) {
  if (base == 0) return "-";
  return fmt::format("{:+.1f}%", (value / base - 1) * 100);
}

Bytes largest(const RunResult& r, Bytes HostResult::*field) {
  Bytes best = 0;
  for (const auto& h : r.hosts) best = std::max(best, h.*field);
  return best;
}

std::vector<Policy> select_policies(const Scenario& scenario, const std::vector<std::string>& names) {
  if (names.empty()) return scenario.policies;
  std::vector<Policy> chosen;
  std::vector<std::string> known;
  for (const auto& p : scenario.policies) known.push_back(p.name);
  for (const auto& name : names) {
    auto it = std::find_if(scenario.policies.begin(), scenario.policies.end(),
                           [&](const Policy& p) { return p.name == name; });
    if (it == scenario.policies.end()) {
      std::string hint = closest_name(name, known);
      std::string all;
      for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
      throw UsageError(fmt::format("--policy {}: no such policy in {} (policies: {}){}", name, scenario.file, all,
                                   hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
    }
    chosen.push_back(*it);
  }
  return chosen;
}

// Refuses an output path whose directory does not exist before any work is done.
void check_writable(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    throw UsageError(fmt::format("--json {}: directory {} does not exist", path, parent.string()));
  }
}

std::string render_table(const std::vector<RunResult>& results) {
  Table table({"policy", "wall", "vs base", "RPCs", "vs base", "wire", "batch mean", "sender peak", "expected",
               "worst", "planner over"});
  const RunResult& base = results.front();
  for (const auto& r : results) {
    table.add_row({r.policy, fmt::format("{:.3f} s", r.wall_s), percent_delta(r.wall_s, base.wall_s),
                   fmt::format("{}", r.rpcs), percent_delta(static_cast<double>(r.rpcs), static_cast<double>(base.rpcs)),
                   human_bytes(r.bytes_wire),
                   human_bytes(r.rpcs > 0 ? r.bytes_uncompressed / static_cast<double>(r.rpcs) : 0),
                   human_bytes(static_cast<double>(largest(r, &HostResult::sender_peak_bytes))),
                   human_bytes(static_cast<double>(largest(r, &HostResult::sender_expected_bytes))),
                   human_bytes(static_cast<double>(largest(r, &HostResult::sender_worst_bytes))),
                   fmt::format("{}/{}", r.planner.over_estimate, r.planner.senders)});
  }
  return table.render();
}

}  // namespace

int simulate_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim simulate SCENARIO [--policy NAME]... [--json OUT] [--set KEY=VALUE]...\n\n"
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
      ("scheduler", po::value<std::string>()->default_value("quad-heap"), "event queue: quad-heap | binary-heap");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>());
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description positional;
  positional.add("scenario", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    std::ostringstream text;
    text << visible;
    fmt::print("{}", text.str());
    return kExitOk;
  }
  if (!vm.count("scenario")) throw UsageError("missing SCENARIO (a scenario JSON file)");
  const auto scenarios = vm["scenario"].as<std::vector<std::string>>();
  if (scenarios.size() != 1) throw UsageError(fmt::format("expected one SCENARIO, got {}", scenarios.size()));

  if (vm.count("json")) check_writable(vm["json"].as<std::string>());
  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  const Scenario scenario = load_scenario(scenarios[0], overrides);
  std::vector<std::string> names;
  if (vm.count("policy")) names = vm["policy"].as<std::vector<std::string>>();
  const auto policies = select_policies(scenario, names);

  SimulateOptions options;
  options.scheduler = vm["scheduler"].as<std::string>();
  if (options.scheduler != "quad-heap" && options.scheduler != "binary-heap") {
    throw UsageError(fmt::format("--scheduler {}: expected quad-heap or binary-heap", options.scheduler));
  }
  std::vector<RunResult> results;
  for (const auto& policy : policies) results.push_back(simulate(scenario, policy, options));

  fmt::print("{} ({} hosts, mt_dop {}, costs: {})\n\n", scenario.name, scenario.cluster.hosts.size(), scenario.mt_dop,
             scenario.costs.source);
  fmt::print("{}", render_table(results));
  if (vm.count("json")) {
    write_file_atomically(vm["json"].as<std::string>(), results_to_json(results));
  }
  return kExitOk;
}

}  // namespace exsim::cli
