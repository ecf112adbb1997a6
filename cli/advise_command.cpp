// exsim advise SCENARIO --memory-budget SIZE [--memory worst|expected] [--mt-dop N] [-o FILE]
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/results_table.h"
#include "cli/workflows/cost_ranges.h"
#include "cli/workflows/policy_search.h"
#include "models/base/error.h"
#include "models/base/size.h"
#include "models/base/text_table.h"
#include "models/base/text_units.h"
#include "models/results/decision_rule.h"
#include "models/results/sensitivity.h"
#include "models/rules/sender_memory.h"
#include "models/scenario/scenario_loader.h"
#include "models/scenario/enum_names.h"
#include "sim/simulate.h"
#include "validate/validated_region.h"

namespace exsim::cli {
namespace po = boost::program_options;
using workflows::Candidate;
using workflows::MemoryMeasure;
using workflows::SearchOutcome;

namespace {

// The pick and the fastest other simulated candidates that fit: those whose
// order each cost's range is judged on.
constexpr std::size_t kContenders = 4;
std::vector<const Candidate*> contenders(const SearchOutcome& outcome) {
  if (!outcome.best) return {};
  const Candidate* pick = &outcome.candidates[*outcome.best];
  std::vector<const Candidate*> others;
  for (const Candidate& c : outcome.candidates) {
    if (c.feasible && c.result && &c != pick) others.push_back(&c);
  }
  std::sort(others.begin(), others.end(), [](const Candidate* a, const Candidate* b) { return a->result->wall_s < b->result->wall_s; });
  if (others.size() > kContenders - 1) others.resize(kContenders - 1);
  others.insert(others.begin(), pick);
  return others;
}

// The keys the search chose, as a scenario's policies write them.
nlohmann::ordered_json chosen_keys(const Policy& p) {
  nlohmann::ordered_json out;
  if (p.buffer.kind == BufferSizing::Kind::kFlat) {
    out["buffer"] = {{"flat", format_size(p.buffer.flat)}};
  } else {
    out["buffer"] = {{"budget", format_size(p.buffer.budget)}, {"min", format_size(p.buffer.min)},
                     {"max", format_size(p.buffer.max)}};
  }
  out["capacity"] = name_of(p.capacity);
  out["in_flight"] = p.in_flight;
  return out;
}

std::string advice_json(const Scenario& scenario, const Policy& base, const RunResult& base_result,
                        const SearchOutcome& outcome, Bytes budget, const char* measure, double margin,
                        const SensitivityVerdict& verdict, const validate::RegionCheck& region) {
  // Both static figures of the base and of each policy simulated, so that a
  // report reads the advice as it reads results (models/results/report_input.cpp).
  const auto with_memory = [&](nlohmann::ordered_json j, const Policy& policy) {
    j["worst_bytes"] = workflows::static_memory(scenario, policy, MemoryMeasure::kWorst);
    j["expected_bytes"] = workflows::static_memory(scenario, policy, MemoryMeasure::kExpected);
    return j;
  };
  nlohmann::ordered_json out;
  out["scenario"] = scenario.name;
  out["mt_dop"] = scenario.mt_dop;
  out["memory_budget_bytes"] = budget;
  out["memory"] = measure;
  out["margin"] = margin;
  out["base"] = with_memory({{"policy", base.name}, {"wall_s", base_result.wall_s}}, base);
  out["simulations"] = outcome.simulations + 1;  // the base's too
  out["space"] = outcome.candidates.size();
  out["pick"] = outcome.best ? nlohmann::ordered_json(outcome.candidates[*outcome.best].policy.name) : nullptr;
  if (outcome.best) {
    out["validated_region"] = {{"inside", region.inside}};
    if (!region.inside) out["validated_region"]["warning"] = region.warning();
  }
  if (!verdict.fastest.empty()) {
    nlohmann::ordered_json turns = nlohmann::ordered_json::array();
    for (const auto& t : verdict.turns) {
      turns.push_back({{"cost", t.cost}, {"end", t.cheap_end ? "cheap" : "dear"}, {"fastest", t.instead}, {"lead", t.lead}});
    }
    out["over_costs"] = {{"holds", verdict.holds()}, {"costs", verdict.costs_moved}, {"turns", turns},
                         {"said", verdict.words()}};
  }
  out["not_told_apart"] = nlohmann::ordered_json::array();
  for (std::size_t i : outcome.ties) out["not_told_apart"].push_back(outcome.candidates[i].policy.name);
  out["candidates"] = nlohmann::ordered_json::array();
  for (const Candidate& c : outcome.candidates) {
    nlohmann::ordered_json j{{"name", c.policy.name}, {"policy", chosen_keys(c.policy)}, {"memory_bytes", c.memory},
                             {"feasible", c.feasible}, {"simulated", c.result.has_value()}};
    if (c.result) {
      j["wall_s"] = c.result->wall_s;
      j["dominated"] = c.dominated;
      const TimeByBound time = c.result->sender_time();
      if (!time.empty()) j["bound_by"] = to_string(time.largest());
      j = with_memory(std::move(j), c.policy);
    }
    out["candidates"].push_back(std::move(j));
  }
  return out.dump(2) + "\n";
}

std::string render_advice(const Scenario& scenario, const Policy& base, const RunResult& base_result,
                          const SearchOutcome& outcome, Bytes budget, const char* measure, double margin,
                          const SensitivityVerdict& verdict, const validate::RegionCheck& region) {
  std::string out = fmt::format("{} ({} hosts, mt_dop {}): of the policies whose per-host sender memory ({}) is "
                                "within {}, the least memory within {:.1f}% of the fastest\n\n",
                                scenario.name, scenario.cluster.hosts.size(), scenario.mt_dop, measure,
                                human_bytes(static_cast<double>(budget)), 100 * margin);
  std::vector<const Candidate*> explored;
  for (const Candidate& c : outcome.candidates) {
    if (c.result) explored.push_back(&c);
  }
  std::sort(explored.begin(), explored.end(), [](const Candidate* a, const Candidate* b) {
    return a->memory != b->memory ? a->memory < b->memory : a->result->wall_s < b->result->wall_s;
  });
  Table table({"policy", "memory", "wall", "vs " + base.name, "bound by", ""});
  for (const Candidate* c : explored) {
    const bool picked = outcome.best && c == &outcome.candidates[*outcome.best];
    table.add_row({c->policy.name, human_bytes(static_cast<double>(c->memory)), fmt::format("{:.3f} s", c->result->wall_s),
                   format_signed_percent(c->result->wall_s / base_result.wall_s - 1),
                   describe_bound(c->result->sender_time()),
                   picked ? "<- pick" : !c->feasible ? "over budget" : c->dominated ? "dominated" : ""});
  }
  out += table.render();
  out += fmt::format("{}\n", kMemoryColumnsNote);
  out += fmt::format("\n{} simulations (the base {} included) of a space of {} policies.\n", outcome.simulations + 1,
                     base.name, outcome.candidates.size());
  if (!outcome.best) {
    Bytes least = outcome.candidates.front().memory;
    for (const Candidate& c : outcome.candidates) least = std::min(least, c.memory);
    return out + fmt::format("No policy fits: the smallest needs {} per host.\n", human_bytes(static_cast<double>(least)));
  }
  const Candidate& best = outcome.candidates[*outcome.best];
  out += fmt::format("\nadvice: {} ({}), {:.3f} s, {} against {} ({:.3f} s), {} per host\n", best.policy.name,
                     chosen_keys(best.policy).dump(), best.result->wall_s,
                     format_signed_percent(best.result->wall_s / base_result.wall_s - 1), base.name, base_result.wall_s,
                     human_bytes(static_cast<double>(best.memory)));
  // The knee: what memory beyond the pick buys, at the most (the fastest that fits).
  const Candidate* fastest = outcome.fastest ? &outcome.candidates[*outcome.fastest] : nullptr;
  if (fastest && fastest != &best && best.memory > 0) {
    out += fmt::format("the knee: beyond {}, memory buys at most {:.1f}%, less than the {:.1f}% margin: the fastest "
                       "that fits, {}, takes {} ({:.1f}x)\n",
                       best.policy.name, 100 * (1 - fastest->result->wall_s / best.result->wall_s), 100 * margin,
                       fastest->policy.name, human_bytes(static_cast<double>(fastest->memory)),
                       static_cast<double>(fastest->memory) / static_cast<double>(best.memory));
  }
  if (best.result->wall_s >= base_result.wall_s * (1 - margin)) {
    out += fmt::format("{} is within {:.1f}% of {}: not told apart from it; {} is as good\n", best.policy.name,
                       100 * margin, base.name, base.name);
  }
  if (!outcome.ties.empty()) {
    std::vector<std::string> names;
    for (std::size_t i : outcome.ties) names.push_back(outcome.candidates[i].policy.name);
    out += fmt::format("not told apart (within {:.1f}%; the pick takes the least memory): {}\n", 100 * margin,
                       fmt::join(names, ", "));
  }
  if (!region.inside) out += fmt::format("{}: {}\n", best.policy.name, region.warning());
  if (!verdict.fastest.empty()) {
    out += fmt::format("over each cost's range (the pick and the {} fastest others that fit, each cost alone, then "
                       "all): {}\n",
                       verdict.policies - 1, verdict.words());
  }
  return out;
}

}  // namespace

int advise_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim advise SCENARIO --memory-budget SIZE [--memory worst|expected] [--mt-dop N]\n"
      "                    [--base NAME] [--set KEY=VALUE]... [--margin PERCENT] [--jobs N] [-o FILE]\n\n"
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
  // A line per simulation on standard error: how many the search is taking.
  std::mutex printing;
  int simulated = 0;
  const auto simulate_one = [&](const Policy& policy) {
    RunResult result = simulate(scenario, policy);
    std::lock_guard lock(printing);
    fmt::print(stderr, "advise: simulation {}: {}: {:.3f} s\n", ++simulated, policy.name, result.wall_s);
    return result;
  };
  const RunResult base_result = simulate_one(base);
  const SearchOutcome outcome =
      workflows::search_policies(scenario, workflows::default_search_space(base), options, simulate_one);

  // Whether the pick holds over every cost's range, among the fastest that fit.
  SensitivityVerdict verdict;
  if (outcome.best && !vm.count("no-sensitivity")) {
    std::vector<Policy> policies;
    std::vector<RunResult> results;
    for (const Candidate* c : contenders(outcome)) {
      policies.push_back(c->policy);
      results.push_back(*c->result);
    }
    workflows::CostRangeOptions ranges;
    ranges.jobs = options.jobs;
    ranges.relative = vm.count("cost-spread") ? vm["cost-spread"].as<double>() / 100 : 0;
    if (has_cost_uncertainty(scenario.costs, ranges.relative)) {
      verdict = workflows::contenders_verdict(scenario, policies, results, ranges,
                                              outcome.candidates[*outcome.best].policy.name, std::max(options.margin, kTieMargin));
    }
  }
  // And whether it lies where the model was checked.
  const validate::RegionCheck region =
      outcome.best ? validate::check_region(validate::region_point(scenario, outcome.candidates[*outcome.best].policy),
                                            validate::builtin_region())
                   : validate::RegionCheck{};
  std::FILE* text = outputs.to_stdout() ? stderr : stdout;
  if (vm.count("output")) {
    outputs.put("--output",
                advice_json(scenario, base, base_result, outcome, *budget, measure.c_str(), options.margin, verdict, region));
  }
  outputs.write();
  fmt::print(text, "{}",
             render_advice(scenario, base, base_result, outcome, *budget, measure.c_str(), options.margin, verdict, region));
  return outcome.best ? kExitOk : kExitThresholds;
}

}  // namespace exsim::cli
