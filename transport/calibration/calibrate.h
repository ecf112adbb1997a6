// `exsim calibrate`: this machine's costs, measured through the real exchange
// (not a separate toy), as a costs profile for the simulator. Each figure is
// the median of several repetitions, kept with its spread.
//
// Every benchmark is an in-process exchange between two loopback hosts, with
// the delay line and NIC pacing running as in `exsim run` but at a 1 us RTT
// that imposes nothing, read from the transport's own CPU clocks by stage:
// serialization per byte from whole batches deep-copied row by row (random),
// a hash sender's routing per row beyond that, deserialization per byte from an
// uncompressed hash run, LZ4 both ways from a compressed one, each less its
// per-call part. Per-call costs come from one-row batches, one call at a time:
// the CPU every stage and both reactors spend per call, and the round trip left
// once that CPU is taken out, which is the software latency. The reactors' CPU
// beyond the per-call part, per byte on the wire, is the transfer cost. Wire
// overhead is the bytes on the wire per call beyond the rows. `cores` is the
// CPUs this process may use: on one machine every emulated host shares them.
#ifndef EXSIM_TRANSPORT_CALIBRATION_CALIBRATE_H_
#define EXSIM_TRANSPORT_CALIBRATION_CALIBRATE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "models/costs.h"

namespace exsim::transport {

struct CalibrationOptions {
  int repetitions = 5;
  double scale = 1.0;  // of the benchmark sizes (tests use a small scale)
  std::uint64_t seed = 1;
  std::function<void(const std::string&)> progress;  // a line per step, if set
};

struct Calibration {
  CostProfile profile;                   // medians, plus cores
  std::map<std::string, FigureSpread> spread;  // by profile key
  std::map<std::string, std::string> sources;   // how each figure was measured
};

// Each figure of each repetition, by profile key.
using CalibrationSamples = std::map<std::string, std::vector<double>>;

// Runs the benchmarks. Throws std::runtime_error when a benchmark exchange fails.
CalibrationSamples measure_costs(const CalibrationOptions& options);
// Medians and spreads of samples (which may come from several measure_costs
// calls, e.g. before and after an experiment), the sources and the cores.
Calibration summarize_costs(const CalibrationSamples& samples);
// measure_costs, then summarize_costs.
Calibration calibrate_costs(const CalibrationOptions& options);

// The count of CPUs this process may run on.
int available_cores();

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_CALIBRATE_H_
