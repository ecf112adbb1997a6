// What a capacity-planning report reads: results files as `simulate --json`,
// `run --json` (arrays), `sweep` (JSON Lines) and `validate --json` write them,
// reduced to the figures the report shows.
#ifndef EXSIM_PLOTS_REPORT_INPUT_H_
#define EXSIM_PLOTS_REPORT_INPUT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace exsim::report {

// One result: a policy run (simulated or measured) at one configuration.
struct Entry {
  std::string label;  // the policy, with the sweep point's settings when there are any
  std::string scenario, policy, source;
  std::vector<std::pair<std::string, std::string>> settings;  // a sweep point's KEY=VALUE
  int mt_dop = -1;                                            // -1: not recorded
  int in_flight = 0;
  long long buffer_flat = 0;  // bytes; 0 for a budget policy or when not recorded
  double wall_s = 0, rpcs = 0, bytes_wire = 0, batch_bytes_mean = 0;
  double sender_peak = 0, sender_expected = 0, sender_worst = 0;  // of the largest host, bytes
  std::vector<std::pair<std::string, double>> cpu_s;              // by stage, in the file's order
  std::vector<std::string> hosts;
  std::vector<std::vector<double>> rtt_nominal_ms;
};

// One validated policy: both halves and the wall-clock error.
struct Validation {
  std::string label;
  double predicted_s = 0, measured_s = 0, wall_error = 0, rpcs_error = 0, bytes_error = 0, peak_error = 0;
};

struct ReportInput {
  std::vector<Entry> entries;  // in the files' order; the first is the baseline
  std::vector<Validation> validations;
  std::vector<std::string> files;
};

// Reads every file; ScenarioError naming the file (and line, for JSON Lines)
// for anything that is not one of the formats above.
ReportInput read_report_input(const std::vector<std::string>& paths);

}  // namespace exsim::report

#endif  // EXSIM_PLOTS_REPORT_INPUT_H_
