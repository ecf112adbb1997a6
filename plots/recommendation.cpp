#include "plots/recommendation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "models/base/size.h"
#include "models/base/text_units.h"
#include "models/results/sensitivity.h"

namespace exsim::report {
namespace {

// The pick's sentence, against the baseline and the fastest.
std::string pick_text(const Recommendation& r, std::optional<double> budget, const std::string& within,
                      const std::function<std::string(const Entry&)>& name_of) {
  if (!r.best) {
    return fmt::format("No result keeps its worst-case per-host sender memory{}; the smallest worst case is {} ({}).",
                       within, human_bytes(r.smallest->sender_worst), name_of(*r.smallest));
  }
  const std::string rule = fmt::format("the least worst-case per-host sender memory within {:.1f}% of the fastest",
                                       100 * r.margin);
  std::string text;
  if (r.best == r.baseline) {
    text = fmt::format("The baseline, {}, is the pick{}: {}, worst-case per-host sender memory {}, {}.",
                       name_of(*r.best), within, format_seconds(r.best->wall_s), human_bytes(r.best->sender_worst), rule);
  } else {
    // Slower than the baseline when the baseline itself is over the budget.
    const double change = r.baseline->wall_s > 0 ? r.best->wall_s / r.baseline->wall_s - 1 : 0;
    const bool over = budget && r.baseline->sender_worst > *budget;
    text = fmt::format("Recommended: {}{}, {}: {}, {:.1f}% {} than the baseline {} ({}{}), with worst-case per-host "
                       "sender memory {} (baseline {}).",
                       name_of(*r.best), within, rule, format_seconds(r.best->wall_s), 100 * std::abs(change),
                       change <= 0 ? "faster" : "slower", name_of(*r.baseline), format_seconds(r.baseline->wall_s),
                       over ? ", over the budget" : "", human_bytes(r.best->sender_worst),
                       human_bytes(r.baseline->sender_worst));
  }
  if (r.fastest != r.best && r.best->wall_s > 0) {
    text += fmt::format(" The fastest, {}, is {:.1f}% faster with {}: within the margin, not told apart.",
                        name_of(*r.fastest), 100 * (1 - r.fastest->wall_s / r.best->wall_s),
                        human_bytes(r.fastest->sender_worst));
  }
  return text;
}

}  // namespace

std::vector<Recommendation> recommend(const ReportInput& in, std::optional<double> budget, double margin) {
  std::vector<Recommendation> all;
  // A validation's measured run of a policy is no choice beside its prediction.
  std::set<std::tuple<std::string, std::string, std::vector<std::pair<std::string, std::string>>>> predicted;
  for (const auto& e : in.entries) {
    if (e.source == "simulated") predicted.insert({e.scenario, e.policy, e.settings});
  }
  for (const auto& point : environment_points(in.entries)) {
    Recommendation r;
    r.scenario = in.entries[point.front()].scenario;
    r.environment = environment_of(in.entries[point.front()]);
    r.no_budget = !budget;
    r.margin = margin;
    std::vector<const Entry*> choices;
    std::vector<DecisionChoice> rule;
    for (const std::size_t i : point) {
      const Entry& e = in.entries[i];
      if (e.source == "measured" && predicted.count({e.scenario, e.policy, e.settings})) continue;
      if (!r.baseline) r.baseline = &e;
      if (!r.smallest || e.sender_worst < r.smallest->sender_worst) r.smallest = &e;
      const bool fits = !budget || e.sender_worst <= *budget;
      if (fits) r.fitting.push_back(&e);
      choices.push_back(&e);
      rule.push_back({e.wall_s, e.sender_worst, fits});
    }
    if (const auto pick = decide(rule, margin)) r.best = choices[*pick];
    if (const auto fastest = fastest_fitting(rule)) r.fastest = choices[*fastest];
    for (std::size_t c = 0; c < choices.size(); ++c) {
      if (choices[c] != r.best && rule[c].fits && within_margin(rule[c].wall_s, r.fastest->wall_s, margin)) {
        r.close.push_back(choices[c]);
      }
    }
    const std::string& environment = r.environment;
    auto name_of = [&](const Entry& e) { return environment.empty() ? e.label : policy_label(e, false); };
    const std::string within = budget ? fmt::format(" within the {} budget", human_bytes(*budget)) : "";
    r.text = pick_text(r, budget, within, name_of);
    if (!r.best) {
      all.push_back(std::move(r));
      continue;
    }
    // Against the costs' range: whether the pick stays within the margin of
    // every other result that fits at both ends (costs move every policy alike).
    if (r.best->wall_cheap_s >= 0) {
      const Entry* ahead = nullptr;
      for (std::size_t c = 0; c < choices.size() && !ahead; ++c) {
        const Entry& e = *choices[c];
        if (&e == r.best || !rule[c].fits || e.wall_cheap_s < 0) continue;
        if (!within_margin(r.best->wall_cheap_s, e.wall_cheap_s, margin) ||
            !within_margin(r.best->wall_dear_s, e.wall_dear_s, margin)) {
          ahead = &e;
        }
      }
      r.text += ahead ? fmt::format(" Within the costs' range {} is faster by more than the margin at one end: the "
                                    "pick turns on the costs.", name_of(*ahead))
                      : " It stays within the margin of every other result at both ends of the costs' range.";
    }
    // And against where the model was checked.
    if (r.best->validated_region.checked && !r.best->validated_region.inside) {
      r.text += " Beware: " + r.best->validated_region.warning + ".";
    }
    // And against each cost alone (simulate --sensitivity): whether the pick
    // holds over every cost's range, among the results that fit the budget.
    if (!r.best->sensitivity.empty()) {
      std::vector<SensitivityRow> rows;
      for (std::size_t c = 0; c < choices.size(); ++c) {
        const Entry& e = *choices[c];
        if (e.source == "measured" || !rule[c].fits) continue;
        rows.push_back({e.policy, e.wall_s, e.wall_cheap_s, e.wall_dear_s, &e.sensitivity});
      }
      const SensitivityVerdict verdict = sensitivity_verdict(rows, r.best->policy, margin);
      if (!verdict.fastest.empty()) r.text += " Over each cost's range: " + verdict.words() + ".";
    }
    all.push_back(std::move(r));
  }
  return all;
}

std::optional<SweepSetting> one_setting(const std::vector<Recommendation>& recommendations) {
  if (recommendations.size() < 2) return std::nullopt;
  std::map<std::string, std::pair<double, std::string>> worst;  // choice -> (largest regret, where)
  std::map<std::string, double> memory;                           // choice -> its largest memory
  std::map<std::string, std::size_t> seen;                        // choice -> points it fits at
  for (const auto& r : recommendations) {
    if (r.scenario != recommendations.front().scenario || !r.fastest || r.fastest->wall_s <= 0) return std::nullopt;
    for (const Entry* e : r.fitting) {
      const std::string choice = policy_label(*e, false);
      const double regret = e->wall_s / r.fastest->wall_s - 1;
      auto& [largest, where] = worst.try_emplace(choice, -1.0, "").first->second;
      if (regret > largest) {
        largest = regret;
        where = r.environment;
      }
      memory[choice] = std::max(memory[choice], e->sender_worst);
      ++seen[choice];
    }
  }
  const double margin = recommendations.front().margin;
  std::optional<SweepSetting> best;
  for (const auto& [choice, regret] : worst) {
    if (seen[choice] != recommendations.size()) continue;  // over the budget somewhere, or not run there
    const bool within = regret.first <= margin;
    bool better = !best;
    if (best && within != best->within_margin) better = within;
    else if (best && within) better = memory[choice] < memory[best->choice];
    else if (best) better = regret.first < best->worst_regret;
    if (better) best = SweepSetting{choice, regret.first, regret.second, recommendations.size(), within};
  }
  return best;
}

std::optional<std::string> one_setting_line(const std::vector<Recommendation>& recommendations) {
  const auto setting = one_setting(recommendations);
  if (!setting) return std::nullopt;
  const double margin = recommendations.front().margin;
  return fmt::format(
      "One setting for all {} points: {}, {} {:.1f}% behind a point's fastest ({}){}; each point's own pick follows.",
      setting->points, setting->choice,
      setting->within_margin ? fmt::format("the least memory within {:.1f}% of every point's fastest, at most", 100 * margin)
                             : "at most",
      100 * setting->worst_regret, setting->worst_point.empty() ? "-" : setting->worst_point,
      setting->within_margin ? "" : fmt::format(": no setting is within {:.1f}% everywhere", 100 * margin));
}

std::optional<std::string> unbounded_note(const std::vector<Recommendation>& recommendations) {
  if (recommendations.empty() || !recommendations.front().no_budget) return std::nullopt;
  return "(No --memory-budget given: memory did not limit the choice.)";
}

std::vector<std::string> recommendation_lines(const std::vector<Recommendation>& recommendations) {
  const auto note = unbounded_note(recommendations);
  if (recommendations.size() == 1) return {recommendations.front().text + (note ? " " + *note : "")};
  bool scenarios = false;
  for (const auto& r : recommendations) scenarios |= r.scenario != recommendations.front().scenario;
  std::vector<std::string> lines;
  if (auto setting = one_setting_line(recommendations)) lines.push_back(std::move(*setting));
  for (const auto& r : recommendations) {
    std::string lead = scenarios ? r.scenario : "";
    if (!r.environment.empty()) lead += (lead.empty() ? "" : ", ") + r.environment;
    lines.push_back(lead.empty() ? r.text : fmt::format("{}: {}", lead, r.text));
  }
  if (note) lines.push_back(*note);
  return lines;
}

std::string recommendation_text(const std::vector<Recommendation>& recommendations) {
  std::string text;
  for (const auto& line : recommendation_lines(recommendations)) text += (text.empty() ? "" : "\n") + line;
  return text;
}

}  // namespace exsim::report
