// The one rule by which exsim recommends a policy: `advise`'s pick, the
// report's recommendation and a sweep's per-point recommendations alike.
//
// Of the choices whose memory fits the budget, the one with the least memory
// among those within a margin of the fastest that fits. A choice faster by
// less than the margin is not told apart: the model's own error against the
// real exchange is about that large, so memory decides. The margin is the
// larger of 2% and the model's median wall-clock error over its validation
// suite (docs/validation.md), unless the user states one.
#ifndef EXSIM_MODELS_RESULTS_DECISION_RULE_H_
#define EXSIM_MODELS_RESULTS_DECISION_RULE_H_

#include <cstddef>
#include <optional>
#include <vector>

namespace exsim {

inline constexpr double kLeastDecisionMargin = 0.02;

// The default margin, from the model's validated median wall-clock error (a
// fraction; 0 or less when none is known).
double decision_margin(double validated_median_error);

struct DecisionChoice {
  double wall_s = 0;
  double memory = 0;  // bytes, as the budget counts them
  bool fits = true;   // within the budget
};

// Whether a wall-clock lies within `margin` of the fastest's.
inline bool within_margin(double wall_s, double fastest_s, double margin) { return wall_s <= fastest_s * (1 + margin); }

// The choice the rule takes: of those that fit, the least memory within
// `margin` of the fastest that fits (the first of equals); none when nothing fits.
std::optional<std::size_t> decide(const std::vector<DecisionChoice>& choices, double margin);

// The fastest choice that fits (the first of equals); none when nothing fits.
std::optional<std::size_t> fastest_fitting(const std::vector<DecisionChoice>& choices);

}  // namespace exsim

#endif  // EXSIM_MODELS_RESULTS_DECISION_RULE_H_
