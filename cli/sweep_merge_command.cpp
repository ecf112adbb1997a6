// exsim sweep merge SHARD.jsonl... [-o RESULTS.jsonl]
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/results/sweep.h"

namespace exsim::cli {
namespace po = boost::program_options;

int sweep_merge_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim sweep merge SHARD.jsonl... [-o RESULTS.jsonl]\n\n"
      "Joins the result files of a sweep's shards (--shard K/N) into the sweep's\n"
      "results, ordered by point and policy: the same lines as the unsharded sweep's,\n"
      "merged the same way. Refuses files of different sweeps, a point twice, and\n"
      "points no file has.\n\n"
      "example:\n  exsim sweep merge shard-1.jsonl shard-2.jsonl -o sweep.jsonl\n\n"
      "Exit status: 0 written, 2 bad input (a shard, a flag).\n\noptions");
  visible.add_options()("help,h", "print this help")(
      "output,o", po::value<std::string>(), "write the merged results to this file (default: standard output)");
  const auto parsed = parse_command_line(args, visible, "shard");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (!vm.count("shard")) throw UsageError("expected the shards' result files (SHARD.jsonl...)");
  OutputFiles outputs;
  const std::optional<std::string> output = file_option(vm, "output");
  if (output) outputs.writes("--output", *output, OutputFormat::kJsonLines);
  for (const auto& path : vm["shard"].as<std::vector<std::string>>()) outputs.reads(path);
  outputs.check();
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& path : vm["shard"].as<std::vector<std::string>>()) {
    files.emplace_back(path, read_text_file(path, "sweep results"));
  }
  const std::string merged = merge_sweep_results(files);
  if (output) {
    outputs.put("--output", merged);
    outputs.write();
  } else {
    fmt::print("{}", merged);
  }
  return kExitOk;
}


}  // namespace exsim::cli
