// The calibration steps `calibrate` and `validate` take: the benchmarks run
// with a progress line per step on standard error, their summary, and the
// profile written from it.
#ifndef EXSIM_WORKFLOWS_CALIBRATION_H_
#define EXSIM_WORKFLOWS_CALIBRATION_H_

#include <string>

#include "transport/calibration/calibrate.h"

namespace exsim::workflows {

// Runs the benchmarks, a progress line per step on stderr.
transport::CalibrationSamples measure_with_progress(int repetitions, double scale);
transport::Calibration calibrate_with_progress(int repetitions, double scale);
// The profile's JSON, with each figure's source and spread.
std::string calibration_profile_json(const transport::Calibration& calibration);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_CALIBRATION_H_
