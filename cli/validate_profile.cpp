// exsim validate --impala-profile PROFILE [--query N] [--base-costs P] [-o OUT] [--markdown OUT]
#include <cstdio>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "workflows/profile_replay.h"
#include "models/scenario/scenario_loader.h"

namespace exsim::cli {

int validate_impala_profile(const boost::program_options::variables_map& vm) {
  const std::string file = vm["impala-profile"].as<std::string>();
  ProfileImportOptions options;
  if (vm.count("query")) options.query = bounded_int(vm, "query", 1, 1'000'000);
  const std::optional<std::string> base_file = file_option(vm, "base-costs");
  OutputFiles outputs;
  outputs.reads(file);
  if (base_file) outputs.reads(*base_file);
  const auto results_file = results_option(vm);
  if (results_file) outputs.writes(results_file->flag, results_file->path);
  if (vm.count("markdown")) outputs.writes("--markdown", vm["markdown"].as<std::string>(), OutputFormat::kMarkdown);
  outputs.check();
  const CostProfile base = base_file ? load_cost_profile(*base_file) : reference_cost_profile();
  const workflows::ProfileReplay replay =
      workflows::replay_profile(file, options, base, base_file ? *base_file : "the reference profile");
  std::FILE* text = outputs.to_stdout() ? stderr : stdout;
  fmt::print(text, "{}", workflows::replay_table(replay, false));
  if (results_file) outputs.put(results_file->flag, workflows::replay_json(replay));
  if (vm.count("markdown")) outputs.put("--markdown", workflows::replay_table(replay, true));
  outputs.write();
  return kExitOk;
}

}  // namespace exsim::cli
