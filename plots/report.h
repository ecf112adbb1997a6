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
#include "plots/recommendation.h"

namespace exsim::report {

struct ReportOptions {
  std::string title = "exsim capacity-planning report";
  std::optional<double> memory_budget;  // bytes
  double margin = kLeastDecisionMargin;  // the decision rule's (models/results/decision_rule.h)
};

// `svgs[i]` is figures[i] drawn (empty when it has no data).
std::string render_html(const ReportInput& input, const std::vector<Figure>& figures,
                        const std::vector<std::string>& svgs, const ReportOptions& options);
std::string render_markdown(const ReportInput& input, const ReportOptions& options);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_REPORT_H_
