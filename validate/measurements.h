// A validation's measurements read back from its JSON (`validate --json`):
// each row's scenario file, the costs it was simulated with and the measured
// result, so that the model can be judged again against them without running
// the real exchange again (`validate --measured`).
#ifndef EXSIM_VALIDATE_MEASUREMENTS_H_
#define EXSIM_VALIDATE_MEASUREMENTS_H_

#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/costs.h"
#include "validate/suite.h"

namespace exsim::validate {

struct Measurement {
  std::string scenario_file;
  CostProfile costs;
  RunResult measured;
  bool steady = true;  // false: taken on a machine too busy or too noisy to judge the model by
  std::string unsteady_why;
  std::string cluster;  // the real cluster's in place of the scenario's (JSON text), "" for its own
  MachineSlowdown slowdown;  // what `costs` were moved by for the machine's speed (already in them)
};

struct Measurements {
  std::vector<Measurement> rows;
  Thresholds thresholds;  // those the validation was judged by
};

// Throws InputError naming the file and the JSON pointer of every problem.
Measurements load_measurements(const std::string& path);

}  // namespace exsim::validate

#endif  // EXSIM_VALIDATE_MEASUREMENTS_H_
