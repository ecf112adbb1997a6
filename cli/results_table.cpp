#include "cli/results_table.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/base/size.h"
#include "models/base/text_table.h"
#include "models/base/text_units.h"
#include "models/rules/policy_notes.h"
#include "models/scenario/scenario_loader.h"

namespace exsim::cli {
namespace {

std::string percent_delta(double value, double base) {
  return base == 0 ? "-" : format_signed_percent(value / base - 1);
}

Bytes largest(const RunResult& r, Bytes HostResult::*field) {
  Bytes best = 0;
  for (const auto& h : r.hosts) best = std::max(best, h.*field);
  return best;
}

}  // namespace

std::vector<Policy> select_policies(const Scenario& scenario, const std::vector<std::string>& names,
                                    const std::string& flag) {
  if (names.empty()) return scenario.policies;
  std::vector<std::string> known;
  for (const auto& p : scenario.policies) known.push_back(p.name);
  check_policy_names(names, known, scenario.file, flag);
  std::vector<Policy> chosen;
  for (const auto& name : names) {
    chosen.push_back(*std::find_if(scenario.policies.begin(), scenario.policies.end(),
                                   [&](const Policy& p) { return p.name == name; }));
  }
  return chosen;
}

std::string render_results_table(const std::vector<RunResult>& results, const std::vector<std::string>& buffers) {
  const bool ranged = std::any_of(results.begin(), results.end(), [](const RunResult& r) { return r.wall_range.known(); });
  std::vector<std::string> header = {"policy", "wall", "vs base", "bound by", "RPCs", "vs base", "wire", "batch mean",
                                     "sender peak", "expected", "worst", "planner over"};
  if (ranged) header.insert(header.begin() + 2, "range");
  if (!buffers.empty()) header.push_back("channel buffer");
  Table table(header);
  const RunResult& base = results.front();
  for (std::size_t i = 0; i < results.size(); ++i) {
    const RunResult& r = results[i];
    const TimeByBound time = r.sender_time();
    std::vector<std::string> row = {r.policy, fmt::format("{:.3f} s", r.wall_s), percent_delta(r.wall_s, base.wall_s),
                   time.empty() ? "-" : describe_bound(time),
                   fmt::format("{}", r.rpcs), percent_delta(static_cast<double>(r.rpcs), static_cast<double>(base.rpcs)),
                   human_bytes(r.bytes_wire),
                   human_bytes(r.rpcs > 0 ? r.bytes_uncompressed / static_cast<double>(r.rpcs) : 0),
                   human_bytes(static_cast<double>(largest(r, &HostResult::sender_peak_bytes))),
                   human_bytes(static_cast<double>(largest(r, &HostResult::sender_expected_bytes))),
                   human_bytes(static_cast<double>(largest(r, &HostResult::sender_worst_bytes))),
                   fmt::format("{}/{}", r.planner.over_estimate, r.planner.senders)};
    if (ranged) {
      row.insert(row.begin() + 2, r.wall_range.known() ? fmt::format("{:.3f}-{:.3f} s", r.wall_range.cheap_s,
                                                                     r.wall_range.dear_s)
                                                       : "-");
    }
    if (!buffers.empty()) row.push_back(buffers.at(i));
    table.add_row(std::move(row));
  }
  return table.render();
}

std::vector<std::string> results_notes(const Scenario& scenario, const std::vector<Policy>& policies,
                                       const std::vector<RunResult>& results) {
  std::vector<std::string> notes = policy_notes(scenario, policies);
  // A worst case beyond the host's memory is no policy to take: said, not
  // left in a column (a "64MB" typed for 64K).
  const Bytes memory = scenario.cluster.memory_per_host > 0 ? scenario.cluster.memory_per_host : kAssumedHostMemory;
  for (std::size_t i = 0; i < results.size() && i < policies.size(); ++i) {
    const Bytes worst = largest(results[i], &HostResult::sender_worst_bytes);
    if (worst <= memory) continue;
    notes.push_back(fmt::format("policy {}: its worst-case sender memory, {} a host, exceeds the host's memory ({}{})",
                                policies[i].name, human_bytes(static_cast<double>(worst)),
                                human_bytes(static_cast<double>(memory)),
                                scenario.cluster.memory_per_host > 0 ? ", cluster.memory_per_host"
                                                                     : " assumed; give cluster.memory_per_host"));
  }
  // Whether the fastest stays the fastest at both ends of the costs' range:
  // costs move every policy alike, so overlapping ranges alone say little.
  if (results.size() > 1 && std::all_of(results.begin(), results.end(), [](const RunResult& r) { return r.wall_range.known(); })) {
    const auto fastest = [&](auto wall) {
      return std::min_element(results.begin(), results.end(),
                              [&](const RunResult& a, const RunResult& b) { return wall(a) < wall(b); })->policy;
    };
    const std::string simulated = fastest([](const RunResult& r) { return r.wall_s; });
    const std::string cheap = fastest([](const RunResult& r) { return r.wall_range.cheap_s; });
    const std::string dear = fastest([](const RunResult& r) { return r.wall_range.dear_s; });
    const std::string& from = results.front().wall_range.from;
    // The model's own error moves each policy apart: a lead smaller than it is no lead.
    const double error = results.front().wall_range.model_error;
    std::vector<double> walls;
    for (const auto& r : results) walls.push_back(r.wall_s);
    std::sort(walls.begin(), walls.end());
    if (error > 0 && walls[1] < walls[0] * (1 + error)) {
      notes.push_back(fmt::format("{} leads the next policy by {:.1f}%, less than the model's validated median error "
                                  "of {:.1f}%: not told apart",
                                  simulated, 100 * (walls[1] / walls[0] - 1), 100 * error));
    } else if (cheap == simulated && dear == simulated) {
      notes.push_back(fmt::format("{} is the fastest at both ends of the costs' range ({})", simulated, from));
    } else {
      notes.push_back(fmt::format("the fastest policy changes within the costs' range ({}): {} as simulated, {} with "
                                  "every cost at its cheap end, {} at its dear end: not told apart",
                                  from, simulated, cheap, dear));
    }
  }
  // Predictions outside the validated region, policies that share a gap said together.
  std::vector<std::pair<std::string, std::string>> outside;  // warning, policies
  for (const RunResult& r : results) {
    if (!r.validated_region.checked || r.validated_region.inside) continue;
    auto it = std::find_if(outside.begin(), outside.end(), [&](const auto& o) { return o.first == r.validated_region.warning; });
    if (it == outside.end()) {
      outside.emplace_back(r.validated_region.warning, r.policy);
    } else {
      it->second += ", " + r.policy;
    }
  }
  for (const auto& [warning, names] : outside) notes.push_back(fmt::format("{}: {}", names, warning));
  for (const RunResult& r : results) {
    const FastForwardNote& fast = r.fast_forward;
    if (fast.applied()) {
      std::vector<std::string> shares;
      for (std::size_t i = 0; i < fast.shortened.size() && i < fast.rows_simulated.size(); ++i) {
        const double share = fast.rows_simulated[i];
        shares.push_back(fast.along_line ? fmt::format("{} at {:.3g}% and {:.3g}%", fast.shortened[i], 50 * share, 100 * share)
                                         : fmt::format("{} at {:.3g}%", fast.shortened[i], 100 * share));
      }
      notes.push_back(fmt::format("{}: fast-forwarded: {} of the rows simulated, times extended {} to the whole rows "
                                  "and calls and bytes counted in full (docs/simulator.md, Fast-forward; --exact to "
                                  "simulate whole)",
                                  r.policy, fmt::join(shares, ", "), fast.along_line ? "along a line" : "over the middle"));
    } else if (!fast.declined.empty()) {
      notes.push_back(fmt::format("{}: simulated whole, not fast-forwarded: {}", r.policy, fast.declined));
    }
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const RunResult &a = results[j], &b = results[i];
      if (a.wall_s == b.wall_s && a.rpcs == b.rpcs && a.bytes_wire == b.bytes_wire) {
        notes.push_back(fmt::format("policies {} and {} gave the same wall-clock, RPCs and bytes", a.policy,
                                    b.policy));
        break;
      }
    }
  }
  return notes;
}

}  // namespace exsim::cli
