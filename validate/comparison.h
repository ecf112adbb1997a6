// The model against the real exchange: one Comparison per (scenario, policy),
// the relative error of each headline figure, and the suite's verdict.
#ifndef EXSIM_VALIDATE_COMPARISON_H_
#define EXSIM_VALIDATE_COMPARISON_H_

#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/costs.h"
#include "validate/suite.h"

namespace exsim::validate {

// Signed relative error of a prediction: (predicted - measured) / measured.
// 0 when both are 0; +-infinity when only the measurement is 0.
double relative_error(double predicted, double measured);

// The largest per-host sender peak of a result.
double largest_sender_peak(const RunResult& result);

struct Comparison {
  std::string scenario_file;
  CostProfile costs;    // what the simulator was given
  RunResult predicted;  // source "simulated"
  RunResult measured;   // source "measured"
  double wall_error = 0, rpcs_error = 0, bytes_error = 0, sender_peak_error = 0;  // signed
  // False when the measurement was taken on a machine too busy or too noisy
  // for it to judge the model (too few steady runs): shown, never judged.
  bool steady = true;
  std::string unsteady_why;  // why, when not steady ("" says it in general terms)
  // The cluster the run had in place of its scenario's, as JSON text (a real
  // cluster's, validate --hosts; cut to the scenario's hosts when simulated):
  // "" for the scenario's own.
  std::string cluster;
  // How much slower the machine ran around the measurement than when `costs`
  // were measured: they are already moved by it (at_slowdown); said, not applied again.
  MachineSlowdown slowdown;
  // The wall-clock error of every run the row stands for, from the lowest:
  // how far the runs of one policy agree (empty for a recorded row).
  std::vector<double> run_wall_errors;
  // Those of the runs set aside as taken on an unsteady machine, beside a steady row's.
  std::vector<double> set_aside_wall_errors;
};

Comparison compare(std::string scenario_file, RunResult predicted, RunResult measured, CostProfile costs = {});

struct Verdict {
  double wall_median_error = 0;  // of |wall error| over rows
  double wall_max_error = 0;
  double rpcs_max_error = 0, bytes_max_error = 0, sender_peak_max_error = 0;
  std::vector<std::string> violations;  // one line per threshold exceeded, over the judged rows
  // Rows left out of the verdict, each with why: measured on a machine too busy
  // or too noisy. Up to the thresholds' unjudged_max, the other rows are judged.
  std::vector<std::string> unjudged;
  // Why the measurements cannot be judged (more rows unjudged than allowed):
  // then there is no verdict, pass or fail.
  std::vector<std::string> no_verdict;
  bool judged() const { return no_verdict.empty(); }
  bool passed() const { return judged() && violations.empty(); }
};

Verdict judge(const std::vector<Comparison>& comparisons, const Thresholds& thresholds);

// Whether a row exceeds any per-row threshold (its stages are then worth showing).
bool row_exceeds(const Comparison& comparison, const Thresholds& thresholds);

// Every comparison (both results in full and the errors), the thresholds and
// the verdict, as pretty JSON.
std::string comparisons_to_json(const std::vector<Comparison>& comparisons, const Thresholds& thresholds,
                                const Verdict& verdict);

}  // namespace exsim::validate

#endif  // EXSIM_VALIDATE_COMPARISON_H_
