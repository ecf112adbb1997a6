// The real half of `exsim validate` on one machine: each scenario's policies
// run on the real exchange, with this machine's costs calibrated before and
// after, and a speed probe (transport/testbed/speed_probe.h) before and after
// every run. A run during which the machine's speed strayed from the speed it
// had when the costs were measured, or other processes took its CPU
// (transport/testbed/cpu_set.h: CoreShare), is set aside and made again; a scenario
// left without enough steady runs, or whose costs changed under it, gets no
// verdict: the machine was too busy or too noisy, which is said, never
// reported as a model error.
#ifndef EXSIM_CLI_VALIDATE_MEASURE_H_
#define EXSIM_CLI_VALIDATE_MEASURE_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "models/results.h"
#include "models/scenario.h"
#include "transport/calibration/calibrate.h"

namespace exsim::cli {

struct LoadedScenario {
  std::string file;
  std::string text;
  Scenario scenario;
};

struct MeasureOptions {
  int repeat = 3;            // steady runs wanted per policy
  int repetitions = 2;       // calibration repetitions per bracket (without a profile)
  bool calibrate = true;     // false: a fixed profile, probes only
  std::chrono::seconds timeout{300};
};

struct MeasuredScenario {
  std::vector<RunResult> runs;                 // per policy: the steady run of median wall-clock
  std::optional<CostProfile> costs;            // calibrated around the runs
  transport::CalibrationSamples before, after; // the brackets (calibrate only)
  double reference_us = 0;                     // the speed the runs were held to
  int runs_set_aside = 0;
  // Why the scenario gets no verdict ("" when it does).
  std::string unsteady;
};

// Measures every scenario in turn; progress on stderr. The first bracket
// before the first scenario, then one after each, shared with the next.
std::vector<MeasuredScenario> measure_scenarios(const std::vector<LoadedScenario>& scenarios,
                                                const MeasureOptions& options);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_VALIDATE_MEASURE_H_
