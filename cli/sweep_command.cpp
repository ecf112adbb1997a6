// exsim sweep SCENARIO --vary KEY=V1,V2... [--jobs N] [-o RESULTS.jsonl] [--shard K/N]
// (exsim sweep merge: sweep_merge_command.cpp)
#include <cstdio>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "workflows/progress.h"
#include "workflows/sweep_runner.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/results/results.h"
#include "models/results/sweep.h"

namespace exsim::cli {
namespace po = boost::program_options;
int sweep_command(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "merge") return sweep_merge_command({args.begin() + 1, args.end()});
  po::options_description visible(
      "usage: exsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--jobs N] [-o RESULTS.jsonl [--resume]]\n"
      "                   [--shard K/N] [--policy NAME]... [--set KEY=VALUE]... [--exact]\n"
      "       exsim sweep merge SHARD.jsonl... [-o RESULTS.jsonl]\n\n"
      "Simulates every combination of the variations (any scenario path, as --set takes\n"
      "it: mt_dop, policies.*.buffer.flat, cluster.rtt_ms.cross_group) on N threads and\n"
      "writes one result object per line (JSON Lines) as each point finishes, each with\n"
      "\"sweep\": {\"point\", \"points\", \"set\"}; with -o OUT, into OUT.partial, renamed OUT\n"
      "once every point is in. Progress goes to standard error: a bar with an ETA on a\n"
      "terminal, a line per point otherwise. Ctrl-C keeps what finished (in OUT.partial);\n"
      "--resume, run again with the same arguments, keeps it and simulates only the rest.\n"
      "--shard K/N runs the points whose number is K-1 modulo N, so N independent jobs\n"
      "(GNU parallel, a Slurm array, a Kubernetes indexed Job) cover the sweep; `exsim\n"
      "sweep merge` joins their files.\n\n"
      "examples:\n"
      "  exsim sweep scenarios/default.json --vary mt_dop=0,4,8 --vary cluster.rtt_ms.cross_group=0.2,0.6 \\\n"
      "      -o sweep.jsonl && exsim report sweep.jsonl\n"
      "  exsim sweep scenarios/default.json --policy 16K --vary 'policies.*.buffer.flat=16K,64K,128K' \\\n"
      "      --shard 2/4 -o part-2.jsonl\n\n"
      "Exit status: 0 done, 2 bad input (the scenario, a value of a point, a flag), 3 a failure,\n"
      "130 interrupted (what finished is kept in OUT.partial).\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("vary,v", po::value<std::vector<std::string>>()->value_name("KEY=V1,V2,...")->composing(), "KEY=V1,V2,...: a variation (repeatable)")
      ("jobs,j", po::value<int>(), "simulations at once (default: the CPUs this process may use)")
      ("exact", "simulate every exchange to its last row (as simulate --exact)")
      ("output,o", po::value<std::string>()->value_name("FILE"), "write the results here (default: standard output)")
      ("shard", po::value<std::string>()->value_name("K/N"), "K/N: run only the K-th of N slices of the points")
      ("resume", "with -o OUT: keep the points OUT.partial (or OUT) holds from an earlier run of this sweep, and "
       "simulate only the others")
      ("policy,p", po::value<std::vector<std::string>>()->value_name("NAME")->composing(),
       "keep only this policy (repeatable); variations of policies.* reach only those kept")
      ("set,s", po::value<std::vector<std::string>>()->value_name("KEY=VALUE")->composing(), "a value set at every point (repeatable)");
  const auto parsed = parse_command_line(args, visible, "scenario");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  const std::string file = single_positional(vm, "scenario", "SCENARIO (a scenario JSON file)");
  std::vector<Variation> variations;
  if (vm.count("vary")) {
    for (const auto& v : vm["vary"].as<std::vector<std::string>>()) variations.push_back(parse_variation(v));
  }
  const SweepPlan plan(std::move(variations));
  const Shard shard = vm.count("shard") ? parse_shard(vm["shard"].as<std::string>()) : Shard{};
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int jobs = vm.count("jobs") ? bounded_int(vm, "jobs", 1, 1024) : cpus;
  std::vector<std::string> base;
  if (vm.count("set")) base = vm["set"].as<std::vector<std::string>>();
  std::vector<std::string> names;
  if (vm.count("policy")) names = vm["policy"].as<std::vector<std::string>>();
  const std::optional<std::string> output = file_option(vm, "output");
  OutputFiles outputs;
  outputs.reads(file);
  if (output) {
    outputs.writes("--output", *output, OutputFormat::kJsonLines);
    outputs.writes("--output (while the sweep runs)", *output + ".partial");
  }
  outputs.check();

  workflows::SweepRunner runner(file, workflows::scenario_text_with_policies(file, names), std::move(base), plan,
                                shard);
  if (vm.count("resume")) {
    if (!output) throw UsageError("--resume goes with -o OUT: it resumes from OUT.partial");
    std::error_code ec;
    const std::string from = std::filesystem::exists(*output + ".partial", ec) ? *output + ".partial" : *output;
    if (!std::filesystem::exists(from, ec)) {
      throw UsageError(fmt::format("--resume: neither {}.partial nor {} exists: nothing to resume", *output, *output));
    }
    workflows::SweepResume resume = workflows::read_sweep_resume(read_text_file(from, "sweep results"), from,
                                                                 runner.plan(), runner.held_points(), runner.policies());
    fmt::print(stderr, "exsim sweep: resuming: {} of {} points kept from {}{}\n", resume.done.size(), runner.points(),
               from, resume.dropped_lines ? fmt::format(" ({} line(s) of points cut short dropped)", resume.dropped_lines)
                                          : "");
    runner.resume_from(std::move(resume));
  }
  if (vm.count("exact")) runner.simulate_exactly();
  workflows::Progress progress("points", runner.points() - runner.resumed_points());
  const workflows::SweepOutcome outcome =
      runner.run(jobs, output, [&](const std::string& label) { progress.done(label); });
  progress.finish();
  if (!outcome.failure.empty()) {
    throw std::runtime_error(output ? fmt::format("{}; the {} points finished are in {}", outcome.failure,
                                                  outcome.completed, outcome.where)
                                    : outcome.failure);
  }
  if (outcome.interrupted) {
    fmt::print(stderr, "exsim sweep: interrupted: {} of {} points written to {}\n", outcome.completed,
               runner.points(), outcome.where);
    return 130;
  }
  return kExitOk;
}

}  // namespace exsim::cli
