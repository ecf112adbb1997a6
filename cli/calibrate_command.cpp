// exsim calibrate [-o PROFILE.json] [--repetitions N] [--scale X]
#include <cstdio>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/calibration_report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/cpu_options.h"
#include "cli/output_files.h"
#include "cli/workflows/calibration.h"
#include "models/base/error.h"
#include "models/results/results.h"
#include "transport/calibration/calibrate.h"

namespace exsim::cli {
namespace po = boost::program_options;

int calibrate_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim calibrate [-o PROFILE.json] [--repetitions N] [--scale X] [--cpus LIST]\n\n"
      "Measures this machine's costs through the real exchange (loopback hosts in\n"
      "this process, delay lines as in `run`): serialization, deserialization, LZ4 both\n"
      "ways per byte, CPU and latency per RPC, wire overhead per RPC, and the cores\n"
      "available. Each figure is the median of the repetitions; a repetition with a\n"
      "figure outside its physical bounds, or during which the machine's speed\n"
      "changed (a speed probe before and after it), is made again. Prints each\n"
      "figure's median and spread (! beyond 30%), and writes a costs profile (spec\n"
      "format) for `simulate --set costs=PROFILE.json` and `validate --profile`.\n"
      "Exit status: 0 written, 2 bad input, 3 a failed run or a figure outside its\n"
      "bounds every time, 4 the machine too busy or noisy (nothing written).\n\n"
      "examples:\n  exsim calibrate -o build/profile.json\n"
      "  exsim simulate scenarios/default.json --set costs=build/profile.json\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("output,o", po::value<std::string>()->value_name("FILE"), "write the profile to this file (default: standard output)")
      ("repetitions,r", po::value<int>()->default_value(5), "repetitions of each benchmark (the median is kept)")
      ("scale", po::value<double>()->default_value(1.0), "size of each benchmark relative to the default");
  add_cpus_option(visible);
  const auto parsed = parse_command_line(args, visible);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const int repetitions = bounded_int(vm, "repetitions", 1, 100);
  const double scale = vm["scale"].as<double>();
  if (!(scale > 0 && scale <= 100)) throw UsageError(fmt::format("--scale {}: expected more than 0, at most 100", scale));
  OutputFiles outputs;
  const std::optional<std::string> output = file_option(vm, "output");
  if (output) outputs.writes("--output", *output);
  outputs.check();
  pin_to(chosen_cpus(vm), "calibrate");

  const transport::Calibration calibration = workflows::calibrate_with_progress(repetitions, scale);
  const std::string table = render_calibration(calibration);
  if (calibration.too_noisy) {
    fmt::print(stderr, "{}calibrate: no profile written: the machine was too busy or too noisy (speed probes {:.0f}% "
                       "apart); try again when it is quieter, or on CPUs of its own (--cpus)\n",
               table, 100 * calibration.speed_spread);
    return kExitNoVerdict;
  }
  const std::string json = workflows::calibration_profile_json(calibration);
  if (output) {
    fmt::print("{}", table);
    outputs.put("--output", json);
    outputs.write();
    fmt::print("\nwrote {}\n", *output);
  } else {
    fmt::print(stderr, "{}", table);
    fmt::print("{}", json);
  }
  return kExitOk;
}

}  // namespace exsim::cli
