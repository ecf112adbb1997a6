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
#include "cli/validate_options.h"
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
  const po::options_description visible = validate_options();
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

  workflows::MeasureOptions measure;
  measure.repeat = repeat;
  measure.repetitions = repetitions;
  measure.timeout = timeout;
  measure.time_limit = time_limit;
  measure.real_cluster = real_cluster_option(vm);
  if (!again && !measure.real_cluster) pin_to(chosen_cpus(vm), "validate");
  const workflows::ValidationRun run = workflows::run_validation(
      suite, again ? std::optional(vm["measured"].as<std::string>()) : std::nullopt, !inputs.empty(), measure,
      vm.count("profile") ? std::optional(vm["profile"].as<std::string>()) : std::nullopt, model_error);
  if (run.calibration) {
    fmt::print(text, "calibrated this machine ({} repetitions before the runs and after each round):\n{}\n",
               repetitions, render_calibration(transport::summarize_costs(*run.calibration)));
  }
  const auto& [comparisons, judged_by, verdict, profile_source, calibration] = run;
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
