// exsim diff A.json B.json: what changed between two results files, per
// policy and per exchange, as `perf diff` shows two profiles side by side.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/results_diff.h"
#include "models/base/error.h"

namespace exsim::cli {
namespace po = boost::program_options;
int diff_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim diff A.json B.json [--all]\n\n"
      "What changed from one results file to another (simulate or run -o: another model, other\n"
      "costs, a change to the scenario), as perf diff shows two profiles: per policy, its\n"
      "wall-clock, RPCs, bytes on the wire, what bounded it and its worst-case sender memory;\n"
      "per exchange, its RPCs, bytes, what bounded it and its largest sender's peak. Policies\n"
      "are matched by name, exchanges by query and id; one in a file only is said so. Only what\n"
      "changed is shown, unless --all.\n\n"
      "examples:\n"
      "  exsim simulate scenarios/default.json -o a.json\n"
      "  exsim simulate scenarios/default.json --set costs.rpc_cpu_us=20 -o b.json && exsim diff a.json b.json\n\n"
      "Exit status: 0 compared (whatever changed), 2 bad input (a results file, a flag).\n\noptions");
  visible.add_options()("help,h", "print this help")("all", "show every figure, changed or not");
  const auto parsed = parse_command_line(args, visible, "results");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const auto files = vm.count("results") ? vm["results"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (files.size() != 2) throw UsageError(fmt::format("expected two results files, A and B; got {}", files.size()));
  const std::vector<RunResult> a = read_results(files[0]);
  const std::vector<RunResult> b = read_results(files[1]);
  DiffRows rows;
  rows.all = vm.count("all") > 0;
  std::vector<std::string> only_a, only_b;
  for (const RunResult& x : a) {
    const auto y = std::find_if(b.begin(), b.end(), [&](const RunResult& r) { return r.policy == x.policy; });
    if (y == b.end()) {
      only_a.push_back(x.policy);
    } else {
      compare(x, *y, rows);
    }
  }
  for (const RunResult& y : b) {
    if (std::none_of(a.begin(), a.end(), [&](const RunResult& r) { return r.policy == y.policy; })) {
      only_b.push_back(y.policy);
    }
  }
  fmt::print("A: {}\nB: {}\n\n", files[0], files[1]);
  if (rows.changed == 0 && !rows.all) {
    fmt::print("no figure changed\n");
  } else {
    fmt::print("{}", rows.table.render());
  }
  for (const auto& p : only_a) fmt::print("policy {}: in A only\n", p);
  for (const auto& p : only_b) fmt::print("policy {}: in B only\n", p);
  return kExitOk;
}

}  // namespace exsim::cli
