#include "models/results/decision_rule.h"

#include <algorithm>
#include <limits>

namespace exsim {

double decision_margin(double validated_median_error) {
  return std::max(kLeastDecisionMargin, validated_median_error);
}

double fastest_fitting(const std::vector<DecisionChoice>& choices) {
  double fastest = std::numeric_limits<double>::infinity();
  for (const DecisionChoice& c : choices) {
    if (c.fits) fastest = std::min(fastest, c.wall_s);
  }
  return fastest;
}

std::optional<std::size_t> decide(const std::vector<DecisionChoice>& choices, double margin) {
  const double fastest = fastest_fitting(choices);
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    const DecisionChoice& c = choices[i];
    if (!c.fits || !within_margin(c.wall_s, fastest, margin)) continue;
    if (!best || c.memory < choices[*best].memory) best = i;
  }
  return best;
}

}  // namespace exsim
