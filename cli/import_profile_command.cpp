// exsim import-profile PROFILE.txt [-o SCENARIO.json] [--costs COSTS.json [--base-costs P]] [--name NAME]
//                      [--hosts N] [--query N] [--kind ID=KIND]...
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/impala/impala_profile.h"
#include "models/impala/profile_costs.h"
#include "models/impala/profile_titles.h"
#include "models/impala/profile_import.h"
#include "models/impala/profile_log.h"
#include "models/results/results.h"
#include "models/scenario/scenario_loader.h"

namespace exsim::cli {
namespace po = boost::program_options;
namespace {

// `path` as the scenario at `scenario` names it: relative to its directory.
std::string relative_to(const std::string& path, const std::string& scenario) {
  const std::filesystem::path dir = std::filesystem::absolute(scenario).parent_path();
  return std::filesystem::absolute(path).lexically_relative(dir).generic_string();
}

}  // namespace

int import_profile_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim import-profile PROFILE.txt [-o SCENARIO.json] [--costs COSTS.json [--base-costs P]]\n"
      "                            [--name NAME] [--hosts N] [--query N] [--kind ID=KIND]...\n\n"
      "Reads an Impala query profile, in text form (the legacy layout with averaged and\n"
      "per-instance fragments, or the aggregated one of AGGREGATED_PROFILE), in JSON (the\n"
      "web UI's /query_profile_json) or as the daemons' profile log (impala_profile_log_*),\n"
      "and writes a scenario with one exchange per KrpcDataStreamSender / DataStreamSender:\n"
      "rows from RowsSent or RowsReturned, bytes from TotalBytesSent or BytesSent and\n"
      "UncompressedRowBatchSize (the LZ4 ratio the tuple data's, less the batches to a\n"
      "sender's own daemon), the partitioning from the plan, hosts and instances from the\n"
      "fragment headers. The scenario's \"notes\" say where every value came from; values\n"
      "the profile does not hold are assumed, noted, and listed on standard error. A file of\n"
      "several profiles (impala-profile-tool's output) gives a scenario query for each profile\n"
      "with a sender, or only the one --query names. With --costs it also writes a costs\n"
      "profile: serialization, deserialization and LZ4 per byte and the RPC layer's latency\n"
      "derived from the senders' and receivers' counters, every other figure from\n"
      "--base-costs (default: the reference profile), each figure's source saying which;\n"
      "the scenario written with -o then uses it.\n\n"
      "example:\n  exsim import-profile q72-profile.txt --hosts 5 -o q72.json && exsim simulate q72.json\n\n"
      "Exit status: 0 written, 2 bad input (the profile, a flag), 3 a failure writing.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("output,o", po::value<std::string>()->value_name("FILE"), "write the scenario to this file (default: standard output)")
      ("name", po::value<std::string>()->value_name("NAME"), "the scenario's name (default: from the query id)")
      ("hosts", po::value<int>(), "cluster size, when the profile names no hosts")
      ("query", po::value<int>()->value_name("N"), "of a file of several profiles, import only the Nth (from 1)")
      ("costs", po::value<std::string>()->value_name("FILE"), "also write a costs profile derived from the profile's counters")
      ("base-costs", po::value<std::string>()->value_name("FILE"),
       "with --costs: the figures the profile does not give come from this costs profile (default: the reference)")
      ("kind", po::value<std::vector<std::string>>()->value_name("KIND")->composing(),
       "ID=KIND: partitioning of exchange ID (its dst_id) when the profile's plan does not\n"
       "show it; KIND is hash, broadcast, random or merge (repeatable)");
  const auto parsed = parse_command_line(args, visible, "profile");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const std::string file = single_positional(vm, "profile", "PROFILE.txt (an Impala query profile: text, JSON or a profile log)");
  ProfileImportOptions options;
  if (vm.count("name")) {
    options.name = vm["name"].as<std::string>();
    const bool valid = !options.name.empty() && std::all_of(options.name.begin(), options.name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    });
    if (!valid) throw UsageError(fmt::format("--name '{}': expected a scenario name ([a-z0-9._-]+)", options.name));
  }
  if (vm.count("hosts")) options.hosts = bounded_int(vm, "hosts", 1, 1024);  // a scenario's limit
  if (vm.count("query")) options.query = bounded_int(vm, "query", 1, 1'000'000);
  if (vm.count("kind")) {
    for (const auto& spec : vm["kind"].as<std::vector<std::string>>()) {
      const std::size_t eq = spec.find('=');
      const std::string kind = eq == std::string::npos ? "" : spec.substr(eq + 1);
      int id = -1;
      try {
        std::size_t used = 0;
        id = std::stoi(spec.substr(0, eq), &used);
        if (used != eq) id = -1;
      } catch (const std::exception&) {
        id = -1;
      }
      if (id < 0 || (kind != "hash" && kind != "broadcast" && kind != "random" && kind != "merge")) {
        throw UsageError(fmt::format("--kind {}: expected ID=KIND, ID an exchange's dst_id and KIND one of hash, "
                                     "broadcast, random, merge",
                                     spec));
      }
      options.kinds[id] = kind;
    }
  }
  OutputFiles outputs;
  outputs.reads(file);
  const std::optional<std::string> output = file_option(vm, "output");
  const std::optional<std::string> costs_file = file_option(vm, "costs");
  const std::optional<std::string> base_file = file_option(vm, "base-costs");
  if (base_file && !costs_file) throw UsageError("--base-costs goes with --costs");
  if (output) outputs.writes("--output", *output, OutputFormat::kJson);
  if (costs_file) outputs.writes("--costs", *costs_file);
  if (base_file) outputs.reads(*base_file);
  outputs.check();
  const CostProfile base = base_file ? load_cost_profile(*base_file) : reference_cost_profile();

  const std::string text = read_text_file(file, "profile");
  // A JSON profile is read as the text form it renders to.
  const ImpalaProfile profile = ImpalaProfile::parse(profile_as_text(text, file), file);
  ImportedScenario imported = import_impala_profile(profile, options);
  // What we write must load: the scenario format's own checks on the result.
  const Scenario scenario = parse_scenario(imported.json, fmt::format("the scenario imported from {}", file));
  if (costs_file) {
    const DerivedCosts derived =
        derive_costs(imported, scenario, base, base_file ? *base_file : "the reference profile", impala_version(profile));
    outputs.put("--costs", cost_profile_json(derived.costs,
                                             fmt::format("Derived by exsim import-profile from {}: {} from its "
                                                         "counters, the rest from {}.",
                                                         file, fmt::join(derived.derived, " and "),
                                                         base_file ? *base_file : "the reference profile"),
                                             derived.sources, {}, derived.warnings));
    for (const auto& w : derived.warnings) fmt::print(stderr, "import-profile: warning: {}\n", w);
    if (output) name_costs_file(imported, relative_to(*costs_file, *output));
  }

  fmt::print(stderr, "import-profile: {} exchange(s) from {}; {} value(s) assumed:\n", imported.exchanges, file,
             imported.assumptions.size());
  for (const auto& [pointer, note] : imported.assumptions) fmt::print(stderr, "  {}: {}\n", pointer, note);
  for (const auto& line : imported.skipped) fmt::print(stderr, "import-profile: {}\n", line);
  if (output) outputs.put("--output", imported.json);
  outputs.write();
  if (output) fmt::print(stderr, "wrote {}\n", *output);
  if (costs_file) fmt::print(stderr, "wrote {}\n", *costs_file);
  if (!output) fmt::print("{}", imported.json);
  return kExitOk;
}

}  // namespace exsim::cli
