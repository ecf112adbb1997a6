// exsim advise SCENARIO --memory-budget SIZE [--memory worst|expected] [--mt-dop N] [-o FILE]
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/advice_output.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/results_table.h"
#include "models/base/error.h"
#include "models/base/size.h"
#include "models/results/decision_rule.h"
#include "models/scenario/scenario_loader.h"
#include "sim/kept_runs.h"
#include "sim/simulate.h"
#include "validate/validated_region.h"
#include "workflows/advice.h"
#include "workflows/progress.h"

namespace exsim::cli {
namespace po = boost::program_options;
using workflows::MemoryMeasure;
using workflows::SearchOutcome;

int advise_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim advise SCENARIO --memory-budget SIZE [--memory worst|expected] [--mt-dop N]\n"
      "                    [--base NAME] [--set KEY=VALUE]... [--margin PERCENT] [--jobs N] [--exact] [-o FILE]\n\n"
      "Searches the sizing policies (flat buffers from 16K to 8M and the size just under each\n"
      "doubling, per-sender budgets from 256K to 1G clamped to 16K-256K a channel, 1, 2 or 4 RPCs\n"
      "in flight; the rest as the base policy)\n"
      "for the one exsim recommends by: of those whose largest per-host sender memory stays within\n"
      "the budget, the least memory within a margin of the fastest (--margin). It simulates a few\n"
      "of them rather than all: memory comes from the static model without simulating, and each\n"
      "family is simulated from its largest size that fits down while a smaller one is within the\n"
      "margin (docs/cli.md). Prints what it explored, with what bounded each, and the advice.\n\n"
      "examples:\n"
      "  exsim advise scenarios/default.json --memory-budget 64M\n"
      "  exsim advise scenarios/seeds/impala-15512.json --memory-budget 2G --mt-dop 8 -o advice.json\n\n"
      "Exit status: 0 advice given, 1 no policy fits the budget, 2 bad input (the scenario, a flag),\n"
      "3 a failure.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("memory-budget,m", po::value<std::string>()->value_name("SIZE"), "per-host sender memory allowed, e.g. 2G (required)")
      ("memory", po::value<std::string>()->value_name("MEASURE")->default_value("worst"),
       "worst (rows of their largest size) or expected (mean rows), the static model's figure")
      ("mt-dop", po::value<int>()->value_name("N"), "the scenario's mt_dop (as --set mt_dop=N)")
      ("base", po::value<std::string>()->value_name("NAME"), "the policy the candidates keep the rest of, and are "
       "compared with (default: the scenario's first)")
      ("set,s", po::value<std::vector<std::string>>()->value_name("KEY=VALUE")->composing(),
       "override a scenario value by its dotted path (repeatable)")
      ("margin", po::value<double>()->value_name("PERCENT"),
       "wall-clocks this close to the fastest are not told apart, and the pick takes the least memory among them\n"
       "(default: the larger of 2% and the model's median error over its validation suite)")
      ("jobs,j", po::value<int>(), "simulations at once (default: the CPUs this process may use)")
      ("grid", "simulate every policy that fits instead of searching (to check the search against)")
      ("exact", "simulate every exchange to its last row (as simulate --exact)")
      ("no-sensitivity", "do not judge the pick over each cost's range (each cost alone at both ends, then all at\n"
       "once, for the pick and the next fastest that fit)")
      ("cost-spread", po::value<double>()->value_name("PERCENT"), "judge the pick over every cost PERCENT either way "
       "instead of the profile's ranges")
      ("output,o", po::value<std::string>()->value_name("FILE"), "the advice and every policy explored (JSON; - for "
       "standard output)");
  const auto parsed = parse_command_line(args, visible, "scenario");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const std::string scenario_file = single_positional(vm, "scenario", "SCENARIO (a scenario JSON file)");
  if (!vm.count("memory-budget")) throw UsageError("--memory-budget SIZE is required (e.g. --memory-budget 2G)");
  const std::string budget_text = vm["memory-budget"].as<std::string>();
  const auto budget = parse_size(budget_text);
  if (!budget || *budget <= 0) throw UsageError(fmt::format("--memory-budget {}: expected a size such as 512M or 2G", budget_text));
  const std::string measure = vm["memory"].as<std::string>();
  if (measure != "worst" && measure != "expected") {
    throw UsageError(fmt::format("--memory {}: expected worst or expected", measure));
  }
  const double margin = vm.count("margin") ? vm["margin"].as<double>() / 100
                                           : decision_margin(validate::median_wall_error(validate::builtin_region()));
  if (!(margin >= 0 && margin < 0.5)) {
    throw UsageError(fmt::format("--margin {}: expected a percentage from 0 to 50", vm["margin"].as<double>()));
  }

  OutputFiles outputs;
  if (vm.count("output")) outputs.writes("--output", vm["output"].as<std::string>(), OutputFormat::kJson);
  std::vector<std::string> overrides;
  if (vm.count("set")) overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("mt-dop")) overrides.push_back(fmt::format("mt_dop={}", bounded_int(vm, "mt-dop", 0, 64)));
  const Scenario scenario = load_scenario(scenario_file, overrides);
  reads_scenario(outputs, scenario);
  const Policy base = vm.count("base") ? select_policies(scenario, {vm["base"].as<std::string>()}, "--base").front()
                                        : scenario.policies.front();
  outputs.check();

  workflows::SearchOptions options;
  options.budget = *budget;
  options.measure = measure == "worst" ? MemoryMeasure::kWorst : MemoryMeasure::kExpected;
  options.margin = margin;
  options.grid = vm.count("grid") > 0;
  options.jobs = vm.count("jobs") ? bounded_int(vm, "jobs", 1, 1024)
                                  : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  workflows::AdviceOptions advice_options;
  advice_options.search = options;
  advice_options.sensitivity = !vm.count("no-sensitivity");
  advice_options.cost_spread = vm.count("cost-spread") ? vm["cost-spread"].as<double>() / 100 : 0;
  advice_options.exact = vm.count("exact") > 0;
  sim::KeptRuns kept;  // one scenario, many policies and costs (sim/kept_runs.h)
  advice_options.kept = &kept;
  SimulateOptions simulate_options;
  simulate_options.kept = &kept;
  simulate_options.exact = advice_options.exact;
  // A line per simulation on standard error: how many the search is taking.
  std::mutex printing;
  int simulated = 0;
  workflows::Advice advice = workflows::search_advice(scenario, base, advice_options, [&](const Policy& policy) {
    RunResult result = simulate(scenario, policy, simulate_options);
    std::lock_guard lock(printing);
    fmt::print(stderr, "advise: simulation {}: {}: {:.3f} s\n", ++simulated, policy.name, result.wall_s);
    return result;
  });
  // The advice as soon as the search has it; its judging over the costs'
  // ranges, most of advise's time, follows in a last line.
  std::FILE* text = outputs.to_stdout() ? stderr : stdout;
  fmt::print(text, "{}", render_advice(scenario, advice, *budget, measure.c_str(), options.margin));
  std::fflush(text);
  if (const std::size_t judging = workflows::judging_simulations(scenario, advice, advice_options); judging > 0) {
    const auto& pick = advice.outcome.candidates[*advice.outcome.best].policy;
    fmt::print(stderr, "advise: judging {} and the {} fastest others that fit over each cost's range (each cost alone "
                       "at both ends, then all at once)\n",
               pick.name, workflows::contenders(advice.outcome).size() - 1);
    workflows::Progress progress("simulations of the costs' ends", judging);
    workflows::judge_advice(scenario, advice, advice_options, [&] { progress.advance(); });
    progress.finish();
  }
  if (vm.count("output")) outputs.put("--output", advice_json(scenario, advice, *budget, measure.c_str(), options.margin));
  outputs.write();
  fmt::print(text, "{}", render_verdict(advice));
  const SearchOutcome& outcome = advice.outcome;
  return outcome.best ? kExitOk : kExitThresholds;
}

}  // namespace exsim::cli
