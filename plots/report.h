// A capacity-planning report from results: a self-contained HTML page (inline
// CSS and SVG, nothing fetched), its Markdown form for CI comments, and the
// recommendation both end with.
#ifndef EXSIM_PLOTS_REPORT_H_
#define EXSIM_PLOTS_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "models/results/report_input.h"
#include "plots/figures.h"

namespace exsim::report {

struct Recommendation {
  std::string scenario;
  // The environment point: a sweep's settings that are not a policy's (MT_DOP,
  // the cluster, the workload: what the user does not choose), "" for none.
  std::string environment;
  const Entry* best = nullptr;      // the fastest result within the budget; nullptr if none is
  const Entry* baseline = nullptr;  // the scenario's first result
  const Entry* smallest = nullptr;  // the smallest worst case, when none is within the budget
  const Entry* runner_up = nullptr; // the second fastest within the budget
  std::string text;                 // one sentence, plain text
  bool no_budget = false;           // no budget given: memory did not limit the choice
};

// For each scenario and environment point (results of different workloads,
// clusters or MT_DOPs do not compete; only policies do): the fastest result
// whose worst-case per-host sender memory is within `budget_bytes` (any,
// without a budget), against the point's first result. With a validation among
// the inputs, a lead over the runner-up smaller than the model's median error
// is said not to tell the two apart.
std::vector<Recommendation> recommend(const ReportInput& input, std::optional<double> budget_bytes);
// What the report says: the one recommendation, or each led by its scenario's
// name and environment point, a line each (a list in HTML and Markdown).
std::vector<std::string> recommendation_lines(const std::vector<Recommendation>& recommendations);
// The same lines, joined by newlines.
std::string recommendation_text(const std::vector<Recommendation>& recommendations);

struct ReportOptions {
  std::string title = "exsim capacity-planning report";
  std::optional<double> memory_budget;  // bytes
};

// `svgs[i]` is figures[i] drawn (empty when it has no data).
std::string render_html(const ReportInput& input, const std::vector<Figure>& figures,
                        const std::vector<std::string>& svgs, const ReportOptions& options);
std::string render_markdown(const ReportInput& input, const ReportOptions& options);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_REPORT_H_
