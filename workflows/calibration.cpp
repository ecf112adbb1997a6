#include "workflows/calibration.h"

#include <cstdio>

#include <fmt/format.h>

#include "models/scenario/costs.h"

namespace exsim::workflows {

transport::CalibrationSamples measure_with_progress(int repetitions, double scale) {
  transport::CalibrationOptions options;
  options.repetitions = repetitions;
  options.scale = scale;
  options.progress = [](const std::string& line) { fmt::print(stderr, "calibrate: {}\n", line); };
  return transport::measure_costs(options);
}

transport::Calibration calibrate_with_progress(int repetitions, double scale) {
  return transport::summarize_costs(measure_with_progress(repetitions, scale));
}

std::string calibration_profile_json(const transport::Calibration& calibration) {
  return cost_profile_json(calibration.profile,
                           "This machine's costs, measured by `exsim calibrate` through the real exchange: medians of "
                           "the repetitions, their range in 'spread'.",
                           calibration.sources, calibration.spread, calibration.warnings);
}

}  // namespace exsim::workflows
