// The model judged against the real exchange, as `exsim validate` does it:
// the suite's scenarios read, each measured run compared with the model at
// the costs of its round, and an earlier validation's measurements judged
// again by this build's model. The measuring itself is suite_measurement.h.
#ifndef EXSIM_WORKFLOWS_VALIDATION_H_
#define EXSIM_WORKFLOWS_VALIDATION_H_

#include <optional>
#include <string>
#include <vector>

#include "workflows/suite_measurement.h"
#include "models/scenario/costs.h"
#include "validate/comparison.h"
#include "validate/measurements.h"
#include "validate/model_errors.h"
#include "validate/suite.h"

namespace exsim::workflows {

// Every scenario of `suite`, read and checked before anything runs; throws
// InputError with every bad file's problems, not only the first one's.
std::vector<LoadedScenario> load_suite_scenarios(const validate::Suite& suite);

struct Judged {
  std::vector<validate::Comparison> comparisons;  // one per policy measured; unjudged ones not steady
};

// Each steady run of `measured` against the model at its round's costs (or
// `fixed` when the suite ran on a fixed profile), through `error` if any; per
// policy the run of median wall-clock error counts (a slowdown the probes
// missed touches one round). A policy without a majority of its steady runs
// shows those it has, or without one the runs set aside: flagged, never judged.
Judged compare_measured(std::vector<LoadedScenario> scenarios, MeasuredSuite measured, const CostProfile& fixed,
                        std::optional<validate::ModelError> error);

// `validate --measured`: an earlier validation's measurements, each row
// simulated anew from its scenario file (`suite`'s file of the same name when
// `suite` has one) with the costs it had; nothing runs on the real exchange.
std::vector<validate::Comparison> compare_again(const validate::Measurements& measurements,
                                                const validate::Suite& suite,
                                                std::optional<validate::ModelError> error);

// What else the machine was doing, for rows left unjudged: its load average.
std::string machine_load();

// The whole of `validate` on this machine: the suite read, measured in rounds
// (suite_measurement.h) with this machine's costs calibrated around them, or
// with `profile`'s when given, and each run judged (compare_measured); rows
// left unjudged say the machine's load.
struct MachineValidation {
  Judged judged;
  std::string machine_load;  // when a row is unjudged
  std::string profile_source;                         // where the model's costs came from, in words
  std::optional<transport::CalibrationSamples> calibration;  // when calibrated: every bracket's repetitions
};
MachineValidation validate_on_this_machine(const validate::Suite& suite, MeasureOptions options,
                                           const std::optional<std::string>& profile,
                                           std::optional<validate::ModelError> error);

// `validate --measured FILE`: its measurements judged again (compare_again),
// by `suite`'s thresholds when one is given, else by those the file was judged by.
struct Recorded {
  std::vector<validate::Comparison> comparisons;
  validate::Suite judged_by;
};
Recorded judge_recorded(const std::string& file, const validate::Suite& suite, bool suite_given,
                        std::optional<validate::ModelError> error);

// `validate` as a whole: an earlier validation's measurements judged again
// (`measured_file`), or the suite run on this machine, then the verdict, with
// the model's deliberate error when one is given (said in profile_source).
struct ValidationRun {
  std::vector<validate::Comparison> comparisons;
  validate::Suite judged_by;  // whose thresholds judged it
  validate::Verdict verdict;
  std::string profile_source;
  std::optional<transport::CalibrationSamples> calibration;  // when this machine was calibrated
};
ValidationRun run_validation(const validate::Suite& suite, const std::optional<std::string>& measured_file,
                             bool suite_given, const MeasureOptions& options, const std::optional<std::string>& profile,
                             std::optional<validate::ModelError> error);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_VALIDATION_H_
