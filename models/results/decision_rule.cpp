#include "models/results/decision_rule.h"

#include <algorithm>

namespace exsim {

double decision_margin(double validated_median_error) {
  return std::max(kLeastDecisionMargin, validated_median_error);
}

std::optional<std::size_t> fastest_fitting(const std::vector<DecisionChoice>& choices) {
  std::optional<std::size_t> fastest;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].fits && (!fastest || choices[i].wall_s < choices[*fastest].wall_s)) fastest = i;
  }
  return fastest;
}

std::optional<std::size_t> decide(const std::vector<DecisionChoice>& choices, double margin) {
  const std::optional<std::size_t> fastest = fastest_fitting(choices);
  if (!fastest) return std::nullopt;
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const DecisionChoice& c = choices[i];
    if (!c.fits || !within_margin(c.wall_s, choices[*fastest].wall_s, margin)) continue;
    if (!best || c.memory < choices[*best].memory) best = i;
  }
  return best;
}

}  // namespace exsim
