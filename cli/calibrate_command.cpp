// exsim calibrate [-o PROFILE.json] [--repetitions N] [--scale X]
#include <cstdio>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/calibration_report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/table.h"
#include "models/error.h"
#include "models/results.h"
#include "transport/calibration/calibrate.h"

namespace exsim::cli {
namespace po = boost::program_options;

std::string render_calibration(const transport::Calibration& calibration) {
  Table table({"figure", "median", "min", "max", "spread"});
  for (const auto& [key, s] : calibration.spread) {
    const double spread = s.median != 0 ? (s.max - s.min) / s.median : 0;
    table.add_row({key, fmt::format("{:.4g}", s.median), fmt::format("{:.4g}", s.min), fmt::format("{:.4g}", s.max),
                   fmt::format("{:.1f}%", 100 * spread)});
  }
  table.add_row({"cores", fmt::format("{}", calibration.profile.cores), "", "", ""});
  return table.render();
}

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
                           calibration.sources, calibration.spread);
}

int calibrate_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim calibrate [-o PROFILE.json] [--repetitions N] [--scale X]\n\n"
      "Measures this machine's costs through the real exchange (loopback hosts in\n"
      "this process, delay lines as in `run`): serialization, deserialization, LZ4 both\n"
      "ways per byte, CPU and latency per RPC, wire overhead per RPC, and the cores\n"
      "available. Prints each figure's median and spread, and writes a costs profile\n"
      "(spec format) for `simulate --set costs=PROFILE.json` and `validate --profile`.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("output,o", po::value<std::string>(), "write the profile to this file (default: standard output)")
      ("repetitions,r", po::value<int>()->default_value(5), "repetitions of each benchmark (the median is kept)")
      ("scale", po::value<double>()->default_value(1.0), "size of each benchmark relative to the default");
  const auto parsed = parse_command_line(args, visible);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const int repetitions = bounded_int(vm, "repetitions", 1, 100);
  const double scale = vm["scale"].as<double>();
  if (!(scale > 0 && scale <= 100)) throw UsageError(fmt::format("--scale {}: expected more than 0, at most 100", scale));
  OutputFiles outputs;
  if (vm.count("output")) outputs.writes("--output", vm["output"].as<std::string>());
  outputs.check();

  const transport::Calibration calibration = calibrate_with_progress(repetitions, scale);
  const std::string json = calibration_profile_json(calibration);
  if (vm.count("output")) {
    fmt::print("{}", render_calibration(calibration));
    outputs.put("--output", json);
    outputs.write();
    fmt::print("\nwrote {}\n", vm["output"].as<std::string>());
  } else {
    fmt::print(stderr, "{}", render_calibration(calibration));
    fmt::print("{}", json);
  }
  return kExitOk;
}

}  // namespace exsim::cli
