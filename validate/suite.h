// A validation suite: scenario files, and the largest errors between the
// model's prediction and the real exchange's measurement that it tolerates.
#ifndef EXSIM_VALIDATE_SUITE_H_
#define EXSIM_VALIDATE_SUITE_H_

#include <string>
#include <vector>

namespace exsim::validate {

// Relative errors, as fractions of the measured figure. The defaults hold when
// a suite has no suite.json or a key is absent.
struct Thresholds {
  double wall_median_error = 0.10;  // median over (scenario, policy) rows
  double wall_max_error = 0.25;     // any row
  double rpcs_error = 0.01;         // any row
  double bytes_error = 0.02;        // bytes on the wire, any row
  double sender_peak_error = 0.15;  // largest per-host sender peak, any row
  // How many rows may go unjudged, for want of steady runs, while the others
  // still get a verdict: 0, every row must be judged.
  int unjudged_max = 0;
};

struct Suite {
  std::vector<std::string> scenarios;  // files, in a stable order
  Thresholds thresholds;
  std::string thresholds_source;  // "defaults" or the suite.json path
};

// From the command line's inputs: each a directory (its *.json files but
// suite.json and region.json, sorted by name; its suite.json sets the thresholds) or a scenario
// file. Thresholds come from the one directory given, if any. Throws
// InputError naming the file and JSON path, or UsageError for bad inputs.
Suite load_suite(const std::vector<std::string>& inputs);

// suite.json's text; `file` names it in errors.
Thresholds parse_thresholds(const std::string& text, const std::string& file);

}  // namespace exsim::validate

#endif  // EXSIM_VALIDATE_SUITE_H_
