#include "cli/calibrate_cluster.h"

#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/cpu_options.h"
#include "cli/output_files.h"
#include "models/base/error.h"
#include "models/results/results.h"
#include "transport/agent/token_file.h"
#include "workflows/cluster_calibration.h"

namespace exsim::cli {
namespace po = boost::program_options;

void add_cluster_options(po::options_description& options) {
  options.add_options()
      ("hosts", po::value<std::string>()->value_name("FILE"),
       "measure the cluster whose agents this file lists (one ADDRESS:PORT per host) instead of this machine")
      ("token-file", po::value<std::string>()->value_name("FILE"), "with --hosts: the agents' token")
      ("cluster", po::value<std::string>()->value_name("FILE"),
       "with --hosts: write the cluster (a scenario's \"cluster\" object, and what was measured) to this file")
      ("round-trips", po::value<int>()->default_value(200), "with --hosts: RPC round trips per host pair")
      ("bulk-mib", po::value<int>()->default_value(64), "with --hosts: MiB sent per host pair for its bandwidth")
      ("no-cpu", "with --hosts: measure the paths only, not each host's CPU costs");
  add_let_cores_sleep_option(options);
}

int calibrate_cluster(const po::variables_map& vm, int repetitions, double scale) {
  if (!vm.count("token-file")) throw UsageError("--hosts needs --token-file (the agents' token)");
  if (vm.count("grid")) throw UsageError("--grid measures this machine: it does not go with --hosts");
  workflows::ClusterCalibrationOptions options;
  options.hosts_file = vm["hosts"].as<std::string>();
  options.token = transport::read_token_file(vm["token-file"].as<std::string>());
  options.round_trips = bounded_int(vm, "round-trips", 10, 100000);
  options.bulk_bytes = static_cast<std::size_t>(bounded_int(vm, "bulk-mib", 1, 4096)) << 20;
  options.cpu = !vm.count("no-cpu");
  options.hold_cores_awake = hold_cores_awake(vm);
  options.cpu_repetitions = repetitions;
  options.cpu_scale = scale;
  options.progress = [](const std::string& line) { fmt::print(stderr, "calibrate --hosts: {}\n", line); };
  OutputFiles outputs;
  const auto cluster_file = file_option(vm, "cluster");
  const auto profile_file = file_option(vm, "output");
  if (!cluster_file && !profile_file) throw UsageError("--hosts writes --cluster FILE and, with the CPU, -o PROFILE: give one");
  if (profile_file && !options.cpu) throw UsageError("--no-cpu measures no costs: there is no profile to write (-o)");
  if (cluster_file) outputs.writes("--cluster", *cluster_file, OutputFormat::kJson);
  if (profile_file) outputs.writes("--output", *profile_file, OutputFormat::kJson);
  outputs.reads(options.hosts_file);
  outputs.check();

  const workflows::ClusterCalibration c = workflows::calibrate_cluster(options);
  fmt::print("{} hosts; {}\nRTT medians, ms (row: from, column: to):\n", c.names.size(), c.groups.why);
  for (int a = 0; a < c.rtt.hosts(); ++a) {
    std::string row = fmt::format("  {:<4} g{}", c.names[static_cast<std::size_t>(a)],
                                  c.groups.group_of[static_cast<std::size_t>(a)]);
    for (int b = 0; b < c.rtt.hosts(); ++b) row += fmt::format(" {:7.3f}", c.rtt.rtt_ms(a, b));
    fmt::print("{}\n", row);
  }
  for (std::size_t h = 0; h < c.cores_awake.size(); ++h) {
    if (cores_refused(c.cores_awake[h])) {
      fmt::print(stderr, "calibrate --hosts: {}'s cores not held awake ({}): its paths and calls include their "
                 "wake-ups\n", c.names[h], cores_refused_why(c.cores_awake[h]));
    }
  }
  if (const std::string sleep = workflows::sleep_cost(c); !sleep.empty()) fmt::print("{}\n", sleep);
  if (!c.path_transfer_failure.empty()) {
    fmt::print(stderr, "calibrate --hosts: the RPC layer's bytes not measured over the cluster's paths ({}): the "
                       "profile keeps the hosts' own calibrations' figure, measured through delay lines\n",
               c.path_transfer_failure);
  }
  for (const auto& failure : c.cpu_failures) fmt::print(stderr, "calibrate --hosts: no CPU costs from {}\n", failure);
  const auto profile = workflows::median_profile(c);
  if (profile_file && profile.is_null()) {
    fmt::print(stderr, "calibrate --hosts: no host's CPU was calibrated: no profile written\n");
    return kExitNoVerdict;
  }
  if (cluster_file) outputs.put("--cluster", workflows::cluster_json(c).dump(2) + "\n");
  if (profile_file) outputs.put("--output", profile.dump(2) + "\n");
  outputs.write();
  if (cluster_file) fmt::print("wrote {}\n", *cluster_file);
  if (profile_file) fmt::print("wrote {}\n", *profile_file);
  return c.cpu_failures.empty() ? kExitOk : kExitNoVerdict;
}

}  // namespace exsim::cli
