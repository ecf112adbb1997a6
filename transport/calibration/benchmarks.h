// The benchmark exchanges behind `exsim calibrate`: each runs the real exchange
// in this process (LocalCluster, loopback hosts, delay lines and NIC pacing as
// in `exsim run`) and reads the transport's own CPU clocks by stage; one
// repetition turns six of them into one value of every profile figure.
#ifndef EXSIM_TRANSPORT_CALIBRATION_BENCHMARKS_H_
#define EXSIM_TRANSPORT_CALIBRATION_BENCHMARKS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace exsim::transport {

// One value of each figure, by profile key. `scale` sizes the exchanges (tests
// use a small one); `say` gets a line per benchmark. Throws std::runtime_error
// when an exchange fails.
std::map<std::string, double> measure_figures(double scale, std::uint64_t seed,
                                              const std::function<void(const std::string&)>& say);

// How each figure is measured, by profile key.
const std::map<std::string, std::string>& figure_sources();

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_CALIBRATION_BENCHMARKS_H_
