// exsim validate SUITE_DIR|SCENARIO... [--profile P] [-o OUT] [--markdown OUT] [--repeat N] [--cpus LIST]
//                [--model-error KIND]; exsim validate --measured VALIDATION.json [SUITE_DIR];
//                exsim validate --impala-profile PROFILE [--query N] [--base-costs P] [-o OUT] [--markdown OUT]
#include <cstdio>
#include <filesystem>
#include <optional>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/calibration_report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/cpu_options.h"
#include "cli/output_files.h"
#include "cli/validate_report.h"
#include "workflows/suite_measurement.h"
#include "workflows/validation.h"
#include "models/base/error.h"
#include "validate/comparison.h"
#include "validate/measurements.h"
#include "validate/model_errors.h"
#include "validate/validated_region.h"
#include "validate/suite.h"

namespace exsim::cli {
namespace po = boost::program_options;

int validate_command(const std::vector<std::string>& args) {
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
      "simulated with the costs around its round, and per policy the run of median error\n"
      "kept. A run during which the machine strayed from its calibrated speed or call cost,\n"
      "or shared its core, is set aside and made again in a later round (at most 4 x --repeat\n"
      "tries per policy, and none after --time-limit). Prints predicted against measured\n"
      "wall-clock, RPCs, bytes on the wire and largest per-host sender peak with the relative\n"
      "error of each, then the median and largest errors, and where a row exceeds a\n"
      "threshold, which stage differs. Thresholds come from SUITE_DIR/suite.json.\n"
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
      "4 no verdict: the machine was too busy or noisy for steady runs (said why, with its load).\n\n"
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
  add_results_option(visible, "every comparison, the thresholds and the verdict");
  add_cpus_option(visible);
  const auto parsed = parse_command_line(args, visible, "inputs");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  std::vector<std::string> inputs;
  if (vm.count("inputs")) inputs = vm["inputs"].as<std::vector<std::string>>();
  if (vm.count("impala-profile")) {
    for (const char* flag : {"measured", "profile", "model-error", "region"}) {
      if (vm.count(flag)) throw UsageError(fmt::format("--{} does not go with --impala-profile", flag));
    }
    if (!inputs.empty()) throw UsageError("--impala-profile replays one profile: no suite or scenario with it");
    return validate_impala_profile(vm);
  }
  for (const char* flag : {"query", "base-costs"}) {
    if (vm.count(flag)) throw UsageError(fmt::format("--{} goes with --impala-profile", flag));
  }
  std::optional<validate::ModelError> model_error;
  if (vm.count("model-error")) {
    model_error = validate::parse_model_error(vm["model-error"].as<std::string>());
    if (!model_error) {
      throw UsageError(fmt::format("--model-error {}: expected one of {}", vm["model-error"].as<std::string>(),
                                   fmt::join(validate::model_error_names(), ", ")));
    }
  }
  const bool again = vm.count("measured") > 0;
  if (again) {
    for (const char* flag : {"profile", "repetitions", "repeat", "time-limit", "timeout", "cpus"}) {
      if (vm.count(flag) && !vm[flag].defaulted()) {
        throw UsageError(fmt::format("--{} applies only when the real exchange runs, not with --measured", flag));
      }
    }
  }
  const validate::Suite suite = again && inputs.empty() ? validate::Suite{} : validate::load_suite(inputs);
  OutputFiles outputs;
  const auto results_file = results_option(vm);
  if (results_file) outputs.writes(results_file->flag, results_file->path);
  if (vm.count("markdown")) outputs.writes("--markdown", vm["markdown"].as<std::string>(), OutputFormat::kMarkdown);
  if (vm.count("region")) outputs.writes("--region", vm["region"].as<std::string>());
  for (const auto& file : suite.scenarios) outputs.reads(file);
  if (!suite.thresholds_source.empty() && suite.thresholds_source != "defaults") outputs.reads(suite.thresholds_source);
  if (again) outputs.reads(vm["measured"].as<std::string>());
  if (vm.count("profile")) {
    outputs.reads(vm["profile"].as<std::string>());
    if (!vm["repetitions"].defaulted()) {
      throw UsageError("--repetitions applies only without --profile: it counts this machine's calibrations");
    }
  }
  outputs.check();  // before the real runs, which take minutes
  std::FILE* text = outputs.to_stdout() ? stderr : stdout;  // standard output may carry a file
  const int repetitions = bounded_int(vm, "repetitions", 1, 100);
  const int repeat = bounded_int(vm, "repeat", 1, 99);
  const std::chrono::seconds timeout(bounded_int(vm, "timeout", 1, 86400));
  const std::chrono::seconds time_limit(bounded_int(vm, "time-limit", 0, 86400));

  std::vector<validate::Comparison> comparisons;
  std::vector<std::string> no_verdict;  // why the measurements cannot be judged
  std::string profile_source;
  validate::Suite judged_by = suite;
  if (again) {
    const std::string file = vm["measured"].as<std::string>();
    workflows::Recorded recorded = workflows::judge_recorded(file, suite, !inputs.empty(), model_error);
    comparisons = std::move(recorded.comparisons);
    judged_by = std::move(recorded.judged_by);
    profile_source = fmt::format("the costs recorded in {}", file);
  } else {
    workflows::MeasureOptions measure;
    measure.repeat = repeat;
    measure.repetitions = repetitions;
    measure.timeout = timeout;
    measure.time_limit = time_limit;
    pin_to(chosen_cpus(vm), "validate");
    workflows::MachineValidation done = workflows::validate_on_this_machine(
        suite, measure, vm.count("profile") ? std::optional(vm["profile"].as<std::string>()) : std::nullopt,
        model_error);
    if (done.calibration) {
      fmt::print(text, "calibrated this machine ({} repetitions before the runs and after each round):\n{}\n",
                 repetitions, render_calibration(transport::summarize_costs(*done.calibration)));
    }
    comparisons = std::move(done.judged.comparisons);
    no_verdict = std::move(done.judged.no_verdict);
    profile_source = std::move(done.profile_source);
  }
  if (model_error) {
    profile_source += fmt::format("; the model with a deliberate error: {}", validate::to_string(*model_error));
  }
  validate::Verdict verdict = validate::judge(comparisons, judged_by.thresholds);
  verdict.no_verdict.insert(verdict.no_verdict.begin(), no_verdict.begin(), no_verdict.end());
  fmt::print(text, "{}", render_validation(comparisons, judged_by, verdict, profile_source, ReportFormat::kText));
  if (results_file) {
    outputs.put(results_file->flag, validate::comparisons_to_json(comparisons, judged_by.thresholds, verdict));
  }
  if (vm.count("markdown")) {
    outputs.put("--markdown", render_validation(comparisons, judged_by, verdict, profile_source, ReportFormat::kMarkdown));
  }
  if (vm.count("region")) {
    std::string suite_dir;
    for (const auto& input : inputs) {
      if (std::filesystem::is_directory(input)) suite_dir = input;
    }
    outputs.put("--region", validate::region_json(validate::region_rows(comparisons, suite_dir)));
  }
  outputs.write();
  if (!verdict.judged()) return kExitNoVerdict;
  return verdict.passed() ? kExitOk : kExitThresholds;
}

}  // namespace exsim::cli
