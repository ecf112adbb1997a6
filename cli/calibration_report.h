// Calibration as `calibrate` and `validate` show it: a table of each figure's
// median and spread, the machine's speed and the warnings.
#ifndef EXSIM_CLI_CALIBRATION_REPORT_H_
#define EXSIM_CLI_CALIBRATION_REPORT_H_

#include <string>

#include "transport/calibration/calibrate.h"

namespace exsim::cli {

std::string render_calibration(const transport::Calibration& calibration);

}  // namespace exsim::cli

#endif  // EXSIM_CLI_CALIBRATION_REPORT_H_
