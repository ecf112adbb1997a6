#include "cli/advice_output.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/results_table.h"
#include "models/base/size.h"
#include "models/base/text_table.h"
#include "models/base/text_units.h"
#include "models/rules/sender_memory.h"
#include "models/scenario/enum_names.h"

namespace exsim::cli {
using workflows::Candidate;
using workflows::MemoryMeasure;
using workflows::SearchOutcome;

namespace {

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

}  // namespace

std::string advice_json(const Scenario& scenario, const workflows::Advice& advice, Bytes budget, const char* measure,
                        double margin) {
  const auto& [base, base_result, outcome, verdict, region] = advice;
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

std::string render_advice(const Scenario& scenario, const workflows::Advice& advice, Bytes budget, const char* measure,
                          double margin) {
  const Policy& base = advice.base;
  const RunResult& base_result = advice.base_result;
  const SearchOutcome& outcome = advice.outcome;
  const validate::RegionCheck& region = advice.region;
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
  return out;
}

std::string render_verdict(const workflows::Advice& advice) {
  const SensitivityVerdict& verdict = advice.verdict;
  if (verdict.fastest.empty()) return "";
  return fmt::format("over each cost's range (the pick and the {} fastest others that fit, each cost alone, then "
                     "all): {}\n",
                     verdict.policies - 1, verdict.words());
}


}  // namespace exsim::cli
