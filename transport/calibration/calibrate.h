// `exsim calibrate`: this machine's costs, measured through the real exchange
// (not a separate toy), as a costs profile for the simulator.
//
// Each repetition runs the benchmark exchanges of benchmarks.h once and gives
// one value of every figure. A figure outside its physical bounds (faster
// than a core copies memory, slower than 1 MB/s, a call costing more than a
// millisecond of CPU) sets its repetition aside, and the repetition is made
// again; so is one during which the machine's speed changed (a speed probe
// before and after it, testbed/speed_probe.h). Each figure is the median of
// the repetitions kept, and one whose repetitions vary by more than
// kUnsteadyFigure is flagged. `cores` is the CPUs this process may use: on one
// machine every emulated host shares them.
#ifndef EXSIM_TRANSPORT_CALIBRATION_CALIBRATE_H_
#define EXSIM_TRANSPORT_CALIBRATION_CALIBRATE_H_

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/scenario/costs.h"
#include "transport/calibration/cache_fit.h"

namespace exsim::transport {

struct CalibrationOptions {
  int repetitions = 5;
  double scale = 1.0;  // of the benchmark sizes (tests use a small scale)
  std::uint64_t seed = 1;
  std::function<void(const std::string&)> progress;  // a line per step, if set
};

// What repetitions measured, kept to be summarized (possibly with those of
// other calls, e.g. before and after an experiment).
struct CalibrationSamples {
  std::map<std::string, std::vector<double>> figures;  // each kept repetition's value, by profile key
  std::vector<double> probes_us;                       // the speed probes around the kept repetitions
  std::vector<double> call_probes_us;                  // the call probes around them (testbed/call_probe.h)
  // Each kept repetition's cache exchanges (cache_benchmarks.h): the profile's
  // cache figures are fitted once to their medians.
  std::vector<std::vector<CacheMeasure>> cache_points;
  int steady = 0;         // repetitions kept at a steady speed
  int unsteady = 0;       // repetitions set aside: the machine's speed or its calls' cost changed during them
  // Of those, by the first reason each failed: the speed, the calls, other processes on our CPUs.
  int unsteady_speed = 0, unsteady_calls = 0, unsteady_others = 0;
  int out_of_bounds = 0;  // repetitions set aside: a figure outside its physical bounds
  int wanted = 0;         // repetitions asked for
  void append(const CalibrationSamples& other);
};

// A figure whose repetitions' range exceeds this share of its median is flagged.
inline constexpr double kUnsteadyFigure = 0.30;

struct Calibration {
  CostProfile profile;                         // medians, plus cores
  std::map<std::string, FigureSpread> spread;  // by profile key
  std::map<std::string, std::string> sources;  // how each figure was measured
  double speed_us = 0;       // median speed probe (testbed/speed_probe.h)
  double speed_spread = 0;   // range of the probes over their median
  // Figures that varied more than kUnsteadyFigure, repetitions set aside, too
  // few steady repetitions: one line each, for stderr and the profile.
  std::vector<std::string> warnings;
  // Fewer repetitions steady than steady_repetitions_needed: the machine was too noisy to trust.
  bool too_noisy = false;
};

// Steady repetitions a calibration of `wanted` needs: a majority, as a
// validation's policy needs a majority of its runs (validate/run_schedule.h).
// Each figure is the median of the steady ones; the others are set aside.
inline constexpr int steady_repetitions_needed(int wanted) { return wanted / 2 + 1; }

// A figure outside its physical bounds in every repetition tried.
class CalibrationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs the repetitions. Throws std::runtime_error when a benchmark exchange
// fails, CalibrationError when a figure stays outside its bounds.
CalibrationSamples measure_costs(const CalibrationOptions& options);
// Medians and spreads of samples, the sources, the cores and the warnings.
Calibration summarize_costs(const CalibrationSamples& samples);

// The physical bounds of a figure, for messages and tests: [min, max] in the
// figure's unit. False for a key without bounds.
bool figure_bounds(const std::string& key, double& min, double& max);

// The count of CPUs this process may use.
int available_cores();
// The bytes of the first of this process's CPUs' own cache beneath the shared
// one (L2, as sysfs lists it: /sys/devices/system/cpu/cpuN/cache/index*/,
// level 2, Data or Unified); 0 when the kernel does not say.
double core_cache_bytes();

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_CALIBRATE_H_
