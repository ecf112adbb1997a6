// The recommendation a report ends with, for each scenario and environment
// point, by exsim's one decision rule (models/results/decision_rule.h): of the
// results whose worst-case per-host sender memory fits the budget, the least
// memory within the margin of the fastest. Results of different workloads,
// clusters or MT_DOPs do not compete; only policies do.
#ifndef EXSIM_PLOTS_RECOMMENDATION_H_
#define EXSIM_PLOTS_RECOMMENDATION_H_

#include <optional>
#include <string>
#include <vector>

#include "models/results/decision_rule.h"
#include "models/results/report_input.h"

namespace exsim::report {

struct Recommendation {
  std::string scenario;
  // The environment point: a sweep's settings that are not a policy's (MT_DOP,
  // the cluster, the workload: what the user does not choose), "" for none.
  std::string environment;
  const Entry* best = nullptr;      // the rule's pick within the budget; nullptr if nothing fits
  const Entry* fastest = nullptr;   // the fastest result within the budget
  const Entry* baseline = nullptr;  // the point's first result
  const Entry* smallest = nullptr;  // the smallest worst case, when none is within the budget
  std::vector<const Entry*> close;  // the others within the margin of the fastest: not told apart
  std::vector<const Entry*> fitting;  // every result at the point within the budget
  double margin = kLeastDecisionMargin;
  std::string text;                 // one paragraph, plain text
  bool no_budget = false;           // no budget given: memory did not limit the choice
};

// Each point's recommendation against its first result, at `margin` (a
// fraction). The text also says whether the pick stays within the margin of
// the others at both ends of the costs' range, where the results carry them,
// whether it lies where the model was checked, and over each cost's range.
std::vector<Recommendation> recommend(const ReportInput& input, std::optional<double> budget_bytes,
                                      double margin = kLeastDecisionMargin);
// One setting for a whole sweep, by the decision rule across its points: of
// the choices (a policy and its own sweep settings) that fit the budget at
// every environment point of one scenario, the least memory among those
// within the margin of each point's fastest everywhere; when none is, the one
// whose largest regret against a point's fastest is least. Nothing for fewer
// than two points or no such choice.
struct SweepSetting {
  std::string choice;
  double worst_regret = 0;   // wall / the point's fastest's wall - 1, at its worst point
  std::string worst_point;   // that point's environment
  std::size_t points = 0;
  bool within_margin = false;  // within the margin at every point
};
std::optional<SweepSetting> one_setting(const std::vector<Recommendation>& recommendations);

// The line giving one setting for a whole sweep (one_setting), if there is one.
std::optional<std::string> one_setting_line(const std::vector<Recommendation>& recommendations);
// What the report says when no budget limited the choice; nothing when one did.
std::optional<std::string> unbounded_note(const std::vector<Recommendation>& recommendations);
// What the report says: the one recommendation, or each led by its scenario's
// name and environment point, a line each (a list in HTML and Markdown),
// after the one setting for a whole sweep when there is one.
std::vector<std::string> recommendation_lines(const std::vector<Recommendation>& recommendations);
// The same lines, joined by newlines.
std::string recommendation_text(const std::vector<Recommendation>& recommendations);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_RECOMMENDATION_H_
