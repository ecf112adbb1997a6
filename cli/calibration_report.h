// Calibration as `calibrate` and `validate` show it: progress lines on stderr,
// a table of each figure's median and spread, and the profile's JSON.
#ifndef EXSIM_CLI_CALIBRATION_REPORT_H_
#define EXSIM_CLI_CALIBRATION_REPORT_H_

#include <string>

#include "transport/calibration/calibrate.h"

namespace exsim::cli {

// Runs the benchmarks, a progress line per step on stderr.
transport::CalibrationSamples measure_with_progress(int repetitions, double scale);
transport::Calibration calibrate_with_progress(int repetitions, double scale);
std::string render_calibration(const transport::Calibration& calibration);
std::string calibration_profile_json(const transport::Calibration& calibration);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_CALIBRATION_REPORT_H_
