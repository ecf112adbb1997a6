// exsim import-profile PROFILE.txt [-o SCENARIO.json] [--name NAME] [--hosts N] [--query N] [--kind ID=KIND]...
#include <algorithm>
#include <cstdio>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/impala/impala_profile.h"
#include "models/impala/profile_import.h"
#include "models/impala/profile_json.h"
#include "models/results/results.h"
#include "models/scenario/scenario_loader.h"

namespace exsim::cli {
namespace po = boost::program_options;

int import_profile_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim import-profile PROFILE.txt [-o SCENARIO.json] [--name NAME] [--hosts N] [--query N]\n"
      "                            [--kind ID=KIND]...\n\n"
      "Reads an Impala query profile, in text form (the legacy layout with averaged and\n"
      "per-instance fragments, or the aggregated one of AGGREGATED_PROFILE) or in JSON (the\n"
      "web UI's /query_profile_json), and writes a scenario with one exchange\n"
      "per KrpcDataStreamSender / DataStreamSender: rows from RowsSent or RowsReturned,\n"
      "bytes from TotalBytesSent or BytesSent and UncompressedRowBatchSize (the LZ4 ratio\n"
      "is their quotient), the partitioning from the plan, hosts and instances from the\n"
      "fragment headers. The scenario's \"notes\" say where every value came from; values\n"
      "the profile does not hold are assumed, noted, and listed on standard error. A file of\n"
      "several profiles (impala-profile-tool's output) gives a scenario query for each profile\n"
      "with a sender, or only the one --query names.\n\n"
      "example:\n  exsim import-profile q72-profile.txt --hosts 5 -o q72.json && exsim simulate q72.json\n\n"
      "Exit status: 0 written, 2 bad input (the profile, a flag), 3 a failure writing.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("output,o", po::value<std::string>()->value_name("FILE"), "write the scenario to this file (default: standard output)")
      ("name", po::value<std::string>()->value_name("NAME"), "the scenario's name (default: from the query id)")
      ("hosts", po::value<int>(), "cluster size, when the profile names no hosts")
      ("query", po::value<int>()->value_name("N"), "of a file of several profiles, import only the Nth (from 1)")
      ("kind", po::value<std::vector<std::string>>()->value_name("KIND")->composing(),
       "ID=KIND: partitioning of exchange ID (its dst_id) when the profile's plan does not\n"
       "show it; KIND is hash, broadcast, random or merge (repeatable)");
  const auto parsed = parse_command_line(args, visible, "profile");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const std::string file = single_positional(vm, "profile", "PROFILE.txt (an Impala query profile, in text form or JSON)");
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
  if (output) outputs.writes("--output", *output);
  outputs.check();

  const std::string text = read_text_file(file, "profile");
  // A JSON profile is read as the text form it renders to.
  const ImpalaProfile profile =
      ImpalaProfile::parse(looks_like_json(text) ? render_json_profile(text, file) : text, file);
  const ImportedScenario imported = import_impala_profile(profile, options);
  // What we write must load: the scenario format's own checks on the result.
  parse_scenario(imported.json, fmt::format("the scenario imported from {}", file));

  fmt::print(stderr, "import-profile: {} exchange(s) from {}; {} value(s) assumed:\n", imported.exchanges, file,
             imported.assumptions.size());
  for (const auto& [pointer, note] : imported.assumptions) fmt::print(stderr, "  {}: {}\n", pointer, note);
  for (const auto& line : imported.skipped) fmt::print(stderr, "import-profile: {}\n", line);
  if (output) {
    outputs.put("--output", imported.json);
    outputs.write();
    fmt::print(stderr, "wrote {}\n", *output);
  } else {
    fmt::print("{}", imported.json);
  }
  return kExitOk;
}

}  // namespace exsim::cli
