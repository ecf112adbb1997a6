// What `exsim validate` accepts: its usage, help and options.
#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/cpu_options.h"
#include "cli/validate_options.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "transport/agent/token_file.h"
#include "validate/model_errors.h"
#include "workflows/suite_measurement.h"

namespace exsim::cli {
namespace po = boost::program_options;

po::options_description validate_options() {
  po::options_description visible(
      "usage: exsim validate SUITE_DIR|SCENARIO... [--profile P | --repetitions N] [-o OUT] [--markdown OUT]\n"
      "                      [--repeat N] [--time-limit S] [--timeout S] [--cpus LIST] [--model-error KIND]\n"
      "       exsim validate --measured VALIDATION.json [SUITE_DIR] [-o OUT] [--markdown OUT] [--model-error KIND]\n"
      "       exsim validate --impala-profile PROFILE [--query N] [--base-costs P] [-o OUT] [--markdown OUT]\n\n"
      "Runs every policy of every scenario both in the simulator and on the real exchange\n"
      "(agent processes on loopback, the scenario's RTTs imposed by delay lines and its NICs\n"
      "by token buckets), with the same seed and the same costs: the profile's, or, without\n"
      "--profile, this machine's, measured before the runs and after each round of them (a\n"
      "round runs once every policy still short of steady runs; --repeat rounds), each run\n"
      "simulated with the costs around its round moved to the machine's speed and call cost\n"
      "around the run (probes before and after it), and per policy the run of median error\n"
      "kept. A run during which the machine's speed (by over 24%) or call cost (over 20%)\n"
      "changed, or that ran further off its calibration's than costs are moved (speed 35%,\n"
      "calls 55%), or shared its core, is set aside and made again in a\n"
      "later round (at most 4 x --repeat tries per policy, and none after --time-limit).\n"
      "Prints predicted against measured wall-clock, RPCs, bytes on the wire and largest\n"
      "per-host sender peak with the relative error of each, then the median and largest\n"
      "errors, and where a row exceeds a threshold, which stage differs. Thresholds come\n"
      "from SUITE_DIR/suite.json.\n"
      "With --impala-profile, the model replayed against a real Impala run: the profile\n"
      "imported (as import-profile does), simulated with the costs its counters give (the\n"
      "rest from --base-costs, default the reference profile), and per exchange the calls,\n"
      "bytes, each call's network and receiver time, the calls held back, the largest\n"
      "sender's peak and the time in the sender beside the profile's counters, and all\n"
      "exchanges' serialization and deserialization times; errors as found, no threshold.\n"
      "With --measured, the measurements of an earlier `validate -o` are judged again\n"
      "against this build's model (each row simulated from its scenario file, or SUITE_DIR's\n"
      "file of that name, with the costs it had), without running anything; thresholds\n"
      "from SUITE_DIR if given, else those the file was judged by.\n"
      "Exit status: 0 within the thresholds, 1 beyond them, 2 bad input, 3 a failed run,\n"
      "4 no verdict: the machine was too busy or noisy for steady runs (said why, with its load).\n"
      "A policy is judged on a majority of the --repeat runs asked when no more are steady in\n"
      "time; with fewer it is left unjudged, and up to suite.json's unjudged_max such rows\n"
      "(default 0) the verdict is the other rows', naming those left out.\n\n"
      "examples:\n"
      "  exsim validate scenarios/validation --repeat 3 -o validation.json --markdown validation.md\n"
      "  exsim validate --measured validation.json scenarios/validation --model-error no-latency\n\n"
      "options");
  visible.add_options()
      ("help,h", "print this help")
      ("profile", po::value<std::string>()->value_name("FILE"), "costs profile for the simulator (default: calibrate this machine around the runs)")
      ("markdown", po::value<std::string>()->value_name("FILE"), "write the tables as Markdown (for CI comments) to this file")
      ("repetitions", po::value<int>()->default_value(2),
       "without --profile: calibration repetitions before the first round and after each")
      ("repeat", po::value<int>()->default_value(1),
       "rounds: run every policy this many times on the real exchange, once a round, and keep the run of median "
       "wall-clock error")
      ("time-limit", po::value<int>()->value_name("SECONDS")->default_value(0),
       "seconds after the first round past which no further round starts to make again the runs set aside "
       "(0: no limit; the first --repeat rounds always run)")
      ("timeout", po::value<int>()->value_name("SECONDS")->default_value(300), "seconds each real exchange may take before the run fails")
      ("measured", po::value<std::string>()->value_name("FILE"), "judge the measurements of this earlier `validate -o` file again")
      ("impala-profile", po::value<std::string>()->value_name("FILE"), "replay the model against this Impala query profile")
      ("query", po::value<int>()->value_name("N"), "with --impala-profile: of a file of several profiles, only the Nth")
      ("base-costs", po::value<std::string>()->value_name("FILE"),
       "with --impala-profile: the costs its counters do not give (default: the reference profile)")
      ("model-error", po::value<std::string>()->value_name("KIND"),
       fmt::format("simulate with a deliberate error, to see the gate fail: {}",
                   fmt::join(validate::model_error_names(), ", ")).c_str());
  visible.add_options()
      ("region", po::value<std::string>()->value_name("FILE"),
       "also write the suite's points (channels and batch, in flight, MT_DOP, RTT) with each row's wall-clock error:\n"
       "the validated region exsim builds in from scenarios/validation/region.json");
  visible.add_options()
      ("hosts", po::value<std::string>()->value_name("FILE"),
       "run on a real cluster: the agents (exsim agent --keep-serving) this file lists, each scenario on the first "
       "of them, no delay lines or NIC caps; needs --token-file, --cluster and --profile")
      ("token-file", po::value<std::string>()->value_name("FILE"), "with --hosts: the agents' token")
      ("cluster", po::value<std::string>()->value_name("FILE"),
       "with --hosts: the cluster calibrate --hosts measured, which replaces each scenario's (its first hosts); "
       "each run is held to the speed each host had when calibrated (its speed_probe_us), and set aside if a host "
       "strayed");
  add_let_cores_sleep_option(visible);
  add_results_option(visible, "every comparison, the thresholds and the verdict");
  add_cpus_option(visible);
  return visible;
}

std::optional<workflows::RealCluster> real_cluster_option(const po::variables_map& vm) {
  if (!vm.count("hosts")) {
    for (const char* flag : {"token-file", "cluster", "let-cores-sleep"}) {
      if (vm.count(flag)) throw UsageError(fmt::format("--{} goes with --hosts", flag));
    }
    return std::nullopt;
  }
  for (const char* flag : {"token-file", "cluster", "profile"}) {
    if (!vm.count(flag)) {
      throw UsageError(fmt::format("--hosts needs --{}: the agents' token, the cluster calibrate --hosts measured, "
                                   "and its costs profile (this machine's costs say nothing of the cluster's)",
                                   flag));
    }
  }
  if (vm.count("measured") || vm.count("cpus")) throw UsageError("--hosts runs the suite on the cluster: not with --measured or --cpus");
  workflows::RealCluster cluster;
  cluster.hosts_file = vm["hosts"].as<std::string>();
  cluster.hold_cores_awake = hold_cores_awake(vm);
  cluster.token = transport::read_token_file(vm["token-file"].as<std::string>());
  cluster.cluster_file = vm["cluster"].as<std::string>();
  const auto document = nlohmann::ordered_json::parse(read_text_file(cluster.cluster_file, "the cluster file"),
                                                      nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    throw InputError({fmt::format("{}: expected JSON, as calibrate --hosts --cluster writes", cluster.cluster_file)});
  }
  // calibrate --hosts writes {"cluster": {...}, "measured": {...}}; a bare cluster object is taken too.
  cluster.cluster_text = (document.contains("cluster") ? document["cluster"] : document).dump();
  const auto measured = document.find("measured");
  if (measured != document.end() && measured->is_object() && measured->contains("speed_probe_us")) {
    const auto& probes = (*measured)["speed_probe_us"];
    const bool numbers = probes.is_array() && std::all_of(probes.begin(), probes.end(), [](const auto& p) { return p.is_number(); });
    if (!numbers) {
      throw InputError({fmt::format("{}: /measured/speed_probe_us: expected an array of numbers (each host's speed "
                                    "probe, -1 for none)",
                                    cluster.cluster_file)});
    }
    cluster.speed_probe_us = probes.get<std::vector<double>>();
  }
  if (cluster.speed_probe_us.empty()) {
    fmt::print(stderr,
               "validate: note: {} holds no speed probes (calibrate --hosts writes them unless --no-cpu): runs are "
               "not held to the speeds the hosts' costs were calibrated at\n",
               cluster.cluster_file);
  }
  return cluster;
}

}  // namespace exsim::cli
