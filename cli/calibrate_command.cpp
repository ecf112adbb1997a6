// exsim calibrate [-o PROFILE.json] [--repetitions N] [--scale X] [--grid OUT.json ...]
// exsim calibrate --hosts FILE --token-file F [--cluster OUT.json] [-o PROFILE.json]
#include <cstdio>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/calibrate_cluster.h"
#include "cli/calibration_report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/cpu_options.h"
#include "cli/output_files.h"
#include "workflows/cache_grid.h"
#include "workflows/calibration.h"
#include "models/base/error.h"
#include "models/results/results.h"
#include "models/scenario/scenario_loader.h"
#include "plots/gnuplot.h"
#include "transport/calibration/calibrate.h"

namespace exsim::cli {
namespace po = boost::program_options;

int calibrate_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim calibrate [-o PROFILE.json] [--repetitions N] [--scale X] [--cpus LIST]\n"
      "                       [--grid OUT.json [--grid-plot OUT.svg] [--profile P] [--grid-repetitions N]]\n"
      "       exsim calibrate --hosts FILE --token-file F [--cluster OUT.json] [-o PROFILE.json] [--no-cpu]\n\n"
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
      "With --grid it then measures the hash sender's routing and the RPC layer's CPU\n"
      "per call over channels 3 to 81 and batches 16K to 1M (one sender, three, wide\n"
      "rows) and simulates each point with the profile just measured (or --profile):\n"
      "the model's cache (docs/simulator.md, \"Caches\") against points it was not fitted on.\n\n"
      "With --hosts it measures a real cluster through agents on its hosts: each ordered\n"
      "host pair's RPC round trip (median and spread) and bandwidth through the exchange's\n"
      "own connections, one pair at a time; placement groups found from the RTTs; and each\n"
      "host's CPU costs by `exsim calibrate` run on it. The paths and calls with the agents'\n"
      "cores held awake, as the model has them (unless --let-cores-sleep), and the pings\n"
      "again with the cores free to sleep, to say what sleep adds. --cluster gets the cluster as a\n"
      "scenario's \"cluster\" object, -o the profile of each figure's median over the hosts.\n\n"
      "examples:\n  exsim calibrate -o build/profile.json\n"
      "  exsim simulate scenarios/default.json --set costs=build/profile.json\n"
      "  exsim calibrate --profile build/profile.json --grid build/grid.json --grid-plot build/grid.svg\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("output,o", po::value<std::string>()->value_name("FILE"), "write the profile to this file (default: standard output)")
      ("repetitions,r", po::value<int>()->default_value(5), "repetitions of each benchmark (the median is kept)")
      ("scale", po::value<double>()->default_value(1.0), "size of each benchmark relative to the default")
      ("grid", po::value<std::string>()->value_name("FILE"),
       "also measure the routing and RPC grid and write it, each point beside the model, to this file (JSON)")
      ("grid-plot", po::value<std::string>()->value_name("FILE"), "with --grid: draw the routing grid to this file (SVG)")
      ("grid-repetitions", po::value<int>()->default_value(3), "with --grid: repetitions of each point (the median is kept)")
      ("profile", po::value<std::string>()->value_name("FILE"),
       "with --grid: simulate the points with this costs profile instead of calibrating first")
      ("grid-measured", po::value<std::string>()->value_name("FILE"),
       "with --grid and --profile: simulate the points of a grid written before again, without measuring");
  add_cpus_option(visible);
  add_cluster_options(visible);
  const auto parsed = parse_command_line(args, visible);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const int repetitions = bounded_int(vm, "repetitions", 1, 100);
  const double scale = vm["scale"].as<double>();
  if (!(scale > 0 && scale <= 100)) throw UsageError(fmt::format("--scale {}: expected more than 0, at most 100", scale));
  if (vm.count("hosts")) return calibrate_cluster(vm, repetitions, scale);
  for (const char* flag : {"token-file", "cluster", "no-cpu", "let-cores-sleep"}) {
    if (vm.count(flag)) throw UsageError(fmt::format("--{} goes with --hosts", flag));
  }
  OutputFiles outputs;
  const std::optional<std::string> output = file_option(vm, "output");
  if (output) outputs.writes("--output", *output, OutputFormat::kJson);
  const std::optional<std::string> grid = file_option(vm, "grid");
  const std::optional<std::string> grid_plot = file_option(vm, "grid-plot");
  const std::optional<std::string> profile = file_option(vm, "profile");
  const std::optional<std::string> measured = file_option(vm, "grid-measured");
  if (!grid && (grid_plot || profile || measured || !vm["grid-repetitions"].defaulted())) {
    throw UsageError("--grid-plot, --profile, --grid-measured and --grid-repetitions go with --grid");
  }
  if (measured && !profile) throw UsageError("--grid-measured needs --profile: the costs to simulate its points with");
  if (measured) outputs.reads(*measured);
  if (profile) outputs.reads(*profile);
  if (profile && output) throw UsageError("--profile takes the costs from a file: there is no profile to write (-o)");
  if (grid) outputs.writes("--grid", *grid);
  if (grid_plot) outputs.writes("--grid-plot", *grid_plot);
  outputs.check();
  const int grid_repetitions = bounded_int(vm, "grid-repetitions", 1, 20);
  pin_to(chosen_cpus(vm), "calibrate");

  CostProfile costs;
  if (profile) {
    costs = load_cost_profile(*profile);
  } else {
    const transport::Calibration calibration = workflows::calibrate_with_progress(repetitions, scale);
    const std::string table = render_calibration(calibration);
    if (calibration.too_noisy) {
      fmt::print(stderr, "{}calibrate: no profile written: the machine was too busy or too noisy (speed probes {:.0f}% "
                         "apart); try again when it is quieter, or on CPUs of its own (--cpus)\n",
                 table, 100 * calibration.speed_spread);
      return kExitNoVerdict;
    }
    const std::string json = workflows::calibration_profile_json(calibration);
    costs = calibration.profile;
    costs.spread = calibration.spread;
    if (output) {
      fmt::print("{}", table);
      outputs.put("--output", json);
    } else {
      fmt::print(stderr, "{}", table);
      if (!grid) fmt::print("{}", json);
    }
  }
  if (grid) {
    workflows::GridOptions options;
    options.repetitions = grid_repetitions;
    options.scale = scale;
    options.progress = [](const std::string& line) { fmt::print(stderr, "calibrate --grid: {}\n", line); };
    std::vector<workflows::GridPoint> points =
        measured ? workflows::read_grid(*measured) : workflows::measure_cache_grid(options);
    workflows::predict_cache_grid(points, costs);
    fmt::print("\n{}", workflows::grid_table(points));
    outputs.put("--grid", workflows::grid_json(points, costs));
    if (grid_plot) outputs.put("--grid-plot", report::render_svg("cache_grid", workflows::grid_csv(points)));
  }
  outputs.write();
  if (output) fmt::print("\nwrote {}\n", *output);
  if (grid) fmt::print("wrote {}{}\n", *grid, grid_plot ? " and " + *grid_plot : "");
  return kExitOk;
}

}  // namespace exsim::cli
