// What a capacity-planning report reads: results files as `simulate --json`,
// `run --json` (arrays), `sweep` (JSON Lines) and `validate --json` write them,
// reduced to the figures the report shows. Beside results_reader.h, which reads
// a result whole: this reader asks only for what the report uses, so that
// results files may grow and hand-made ones need not hold every figure.
#ifndef EXSIM_MODELS_RESULTS_REPORT_INPUT_H_
#define EXSIM_MODELS_RESULTS_REPORT_INPUT_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/results/results.h"

namespace exsim::report {

// One result: a policy run (simulated or measured) at one configuration.
struct Entry {
  std::string label;  // the policy, with the sweep point's settings when there are any
  std::string scenario, policy, source;
  std::vector<std::pair<std::string, std::string>> settings;  // a sweep point's KEY=VALUE
  int sweep_point = -1;                                       // -1: not from a sweep
  // The policy's other settings (capacity, compression...), KEY and VALUE as text.
  std::vector<std::pair<std::string, std::string>> config;
  int mt_dop = -1;                                            // -1: not recorded
  int in_flight = 0;
  long long buffer_flat = 0;  // bytes; 0 for a budget policy or when not recorded
  double wall_s = 0, rpcs = 0, bytes_wire = 0, batch_bytes_mean = 0;
  // The wall-clock with every cost at its cheap and at its dear end (simulate
  // --range); -1: not simulated.
  double wall_cheap_s = -1, wall_dear_s = -1;
  std::vector<CostSwing> sensitivity;  // each cost alone over its range (simulate --sensitivity)
  RegionNote validated_region;         // against the suite's points
  double sender_peak = 0, sender_expected = 0, sender_worst = 0;  // of the largest host, bytes
  std::string bound;  // what bounded it, in words ("round trips 69%"); empty: not in the file
  std::vector<std::pair<std::string, double>> cpu_s;              // by stage, in the file's order
  std::vector<std::string> hosts;
  std::vector<std::vector<double>> rtt_nominal_ms;
  std::vector<std::string> host_groups;  // each host's placement group, when the file says
};

// One validated policy: both halves and the wall-clock error.
struct Validation {
  std::string label;
  double predicted_s = 0, measured_s = 0, wall_error = 0, rpcs_error = 0, bytes_error = 0, peak_error = 0;
};

// A validation file's verdict and the thresholds it was judged by.
struct ValidationVerdict {
  std::string file;
  std::string outcome;  // "passed", "failed" or "no verdict"
  double wall_median_error = 0, wall_max_error = 0;                      // measured
  double wall_median_threshold = 0, wall_max_threshold = 0;              // allowed
  std::vector<std::string> reasons;  // the violations, or why there is no verdict
};

struct ReportInput {
  // In the files' order, a sweep's by point (its lines come as points finish).
  // A scenario's first result is its baseline.
  std::vector<Entry> entries;
  std::vector<Validation> validations;
  std::vector<ValidationVerdict> verdicts;  // one per validation file
  std::vector<std::string> files;
  // What the reader must know of the inputs: a sweep cut short, its points missing.
  std::vector<std::string> warnings;

  // The scenarios, in the order they first appear.
  std::vector<std::string> scenarios() const;
  // For each entry, the index of the first result of its scenario at its
  // environment point (what the user does not choose: a sweep's MT_DOP,
  // RTTs...): what it is compared with.
  std::vector<std::size_t> baselines() const;
};

// A sweep setting as a reader says it: "MT_DOP 8", "cross-group RTT 0.6 ms",
// "2 in flight", "buffer 64K"; a key it does not know as its last word and the value.
std::string setting_in_words(const std::string& key, const std::string& value);
// The same as a table's column and cell: {"cross-group RTT", "0.6 ms"}.
std::pair<std::string, std::string> setting_as_column(const std::string& key, const std::string& value);
// Whether a sweep setting is a policy's (the user chooses it), not the environment's.
bool is_policy_setting(const std::string& key);
// A result's policy with its own sweep settings, not the environment's:
// "16K (2 in flight)", "(measured)" after a measured one; led by the scenario
// when `with_scenario`.
std::string policy_label(const Entry& e, bool with_scenario);

// A result's environment point: its sweep settings that are not a policy's
// (MT_DOP, the cluster, the workload: what the user does not choose), in
// words; "" for none.
std::string environment_of(const Entry& e);

// The results by scenario and environment point, as indices into `entries`,
// the points in order of first appearance: the results that compete.
std::vector<std::vector<std::size_t>> environment_points(const std::vector<Entry>& entries);

// Reads every file; InputError naming the file (and line, for JSON Lines)
// for anything that is not one of the formats above, or that holds no result.
// When the results are of more than one scenario, each label starts with its
// scenario's name.
ReportInput read_report_input(const std::vector<std::string>& paths);

}  // namespace exsim::report

#endif  // EXSIM_MODELS_RESULTS_REPORT_INPUT_H_
