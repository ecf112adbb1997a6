// The tables of `exsim validate`, as text for the terminal or as Markdown for
// CI comments: one row per (scenario, policy), then the verdict, then, for each
// row beyond a threshold, where the two differ: per exchange, CPU by stage and
// RPC network time.
#ifndef EXSIM_CLI_VALIDATE_REPORT_H_
#define EXSIM_CLI_VALIDATE_REPORT_H_

#include <string>
#include <vector>

#include "validate/comparison.h"
#include "validate/suite.h"

namespace exsim::cli {

enum class ReportFormat { kText, kMarkdown };

std::string render_validation(const std::vector<validate::Comparison>& comparisons, const validate::Suite& suite,
                              const validate::Verdict& verdict, const std::string& profile_source,
                              ReportFormat format);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_VALIDATE_REPORT_H_
