// exsim sweep SCENARIO --vary KEY=V1,V2... [--jobs N] [-o RESULTS.jsonl] [--shard K/N]
// exsim sweep merge SHARD.jsonl... [-o RESULTS.jsonl]
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include <algorithm>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/output_files.h"
#include "cli/progress.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/results/results.h"
#include "models/scenario/scenario_loader.h"
#include "models/results/sweep.h"
#include "sim/simulate.h"

namespace exsim::cli {
namespace po = boost::program_options;
namespace {

// Ctrl-C: the first stops taking new points (those running finish and are
// written); the second leaves at once. Lines are whole: each point's lines go
// out in one write(2).
std::atomic<int> interrupts{0};
extern "C" void on_interrupt(int) {
  if (interrupts.fetch_add(1) >= 1) _exit(130);
}

void write_all(int fd, const std::string& text, const std::string& where) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(fmt::format("{}: write failed: {}", where, std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
}

// The scenario's text with only the --policy policies (all without it), so
// that a variation such as policies.*.buffer.flat reaches only those.
std::string scenario_text(const std::string& file, const std::vector<std::string>& names) {
  const std::string text = read_scenario_file(file);
  if (names.empty()) return text;
  nlohmann::ordered_json doc = parse_json_text(text, file);
  if (doc.is_object() && doc.contains("policies") && doc["policies"].is_object()) {
    std::vector<std::string> known;
    for (const auto& [name, policy] : doc["policies"].items()) known.push_back(name);
    for (std::size_t i = 0; i < names.size(); ++i) {
      const std::string& name = names[i];
      if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), name) != names.begin() + static_cast<std::ptrdiff_t>(i)) {
        throw UsageError(fmt::format("--policy {}: given twice", name));
      }
      if (!doc["policies"].contains(name)) {
        const std::string hint = closest_name(name, known);
        std::string all;
        for (const auto& k : known) all += (all.empty() ? "" : ", ") + k;
        throw UsageError(fmt::format("--policy {}: no such policy in {} (policies: {}){}", name, file, all,
                                     hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint)));
      }
    }
    nlohmann::ordered_json kept = nlohmann::ordered_json::object();
    for (const auto& [name, policy] : doc["policies"].items()) {
      if (std::find(names.begin(), names.end(), name) != names.end()) kept[name] = policy;
    }
    doc["policies"] = kept;
    doc.erase("notes");  // notes may name the policies left out
  }
  return doc.dump();
}

// A scenario error of one point names the point, so that a bad value in a --vary list is found.
Scenario load_point(const std::string& file, const std::string& text, std::vector<std::string> overrides,
                    const SweepPoint& point) {
  for (const auto& o : point.overrides()) overrides.push_back(o);
  try {
    return parse_scenario(text, file, overrides);
  } catch (const InputError& e) {
    std::vector<std::string> messages;
    for (const auto& m : e.messages()) messages.push_back(fmt::format("sweep point {} ({}): {}", point.index, point.label(), m));
    throw InputError(messages);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("sweep point {} ({}): {}", point.index, point.label(), e.what()));
  }
}

int merge_command(const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: exsim sweep merge SHARD.jsonl... [-o RESULTS.jsonl]\n\n"
      "Joins the result files of a sweep's shards (--shard K/N) into the sweep's\n"
      "results, ordered by point and policy: the same lines as the unsharded sweep's,\n"
      "merged the same way. Refuses files of different sweeps, a point twice, and\n"
      "points no file has.\n\noptions");
  visible.add_options()("help,h", "print this help")(
      "output,o", po::value<std::string>(), "write the merged results to this file (default: standard output)");
  const auto parsed = parse_command_line(args, visible, "shard");
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;
  if (!vm.count("shard")) throw UsageError("expected the shards' result files (SHARD.jsonl...)");
  OutputFiles outputs;
  if (vm.count("output")) outputs.writes("--output", vm["output"].as<std::string>());
  for (const auto& path : vm["shard"].as<std::vector<std::string>>()) outputs.reads(path);
  outputs.check();
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& path : vm["shard"].as<std::vector<std::string>>()) {
    files.emplace_back(path, read_text_file(path, "sweep results"));
  }
  const std::string merged = merge_sweep_results(files);
  if (vm.count("output")) {
    outputs.put("--output", merged);
    outputs.write();
  } else {
    fmt::print("{}", merged);
  }
  return kExitOk;
}

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "merge") return merge_command({args.begin() + 1, args.end()});
  po::options_description visible(
      "usage: exsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--jobs N] [-o RESULTS.jsonl]\n"
      "                   [--shard K/N] [--policy NAME]... [--set KEY=VALUE]...\n"
      "       exsim sweep merge SHARD.jsonl... [-o RESULTS.jsonl]\n\n"
      "Simulates every combination of the variations (any scenario path, as --set takes\n"
      "it: mt_dop, policies.*.buffer.flat, cluster.rtt_ms.cross_group) on N threads and\n"
      "writes one result object per line (JSON Lines) as each point finishes, each with\n"
      "\"sweep\": {\"point\", \"points\", \"set\"}; with -o OUT, into OUT.partial, renamed OUT\n"
      "once every point is in. Progress goes to standard error: a bar with an ETA on a\n"
      "terminal, a line per point otherwise. Ctrl-C keeps what finished (in OUT.partial).\n"
      "--shard K/N runs the points whose number is K-1 modulo N, so N independent jobs\n"
      "(GNU parallel, a Slurm array, a Kubernetes indexed Job) cover the sweep; `exsim\n"
      "sweep merge` joins their files.\n\noptions");
  visible.add_options()
      ("help,h", "print this help")
      ("vary,v", po::value<std::vector<std::string>>()->composing(), "KEY=V1,V2,...: a variation (repeatable)")
      ("jobs,j", po::value<int>(), "simulations at once (default: the CPUs this process may use)")
      ("output,o", po::value<std::string>(), "write the results here (default: standard output)")
      ("shard", po::value<std::string>(), "K/N: run only the K-th of N slices of the points")
      ("policy,p", po::value<std::vector<std::string>>()->composing(),
       "keep only this policy (repeatable); variations of policies.* reach only those kept")
      ("set,s", po::value<std::vector<std::string>>()->composing(), "a value set at every point (repeatable)");
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
  const bool to_file = vm.count("output") > 0;
  const std::string output = to_file ? vm["output"].as<std::string>() : "";
  OutputFiles outputs;
  outputs.reads(file);
  if (to_file) {
    outputs.writes("--output", output);
    outputs.writes("--output (while the sweep runs)", output + ".partial");
  }
  outputs.check();
  // Lines go to OUT.partial as points finish and the file becomes OUT only
  // when every point is in: OUT never holds part of a sweep, and an earlier
  // OUT is not lost to a sweep that stops.
  const std::string where = to_file ? output + ".partial" : "standard output";

  const std::string text = scenario_text(file, names);
  // A value both set and varied would be varied, the --set lost without a word.
  for (const auto& set : base) {
    const std::string key = set.substr(0, set.find('='));
    for (const auto& v : plan.variations()) {
      if (v.key == key) throw UsageError(fmt::format("--set {}: {} is also varied (--vary {}=...)", set, key, key));
    }
  }
  parse_scenario(text, file, base);  // the scenario and --set alone: their errors are not a point's
  std::vector<std::pair<std::string, std::vector<std::string>>> vary;
  for (const auto& v : plan.variations()) vary.emplace_back(v.key, v.values);
  // Every point loads before any runs: a bad value fails the sweep now, not hours in.
  std::vector<SweepPoint> points;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (!shard.holds(i)) continue;
    points.push_back(plan.point(i));
    load_point(file, text, base, points.back());
  }

  const int fd = to_file ? ::open(where.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644) : STDOUT_FILENO;
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot write: {}", where, std::strerror(errno)));
  std::signal(SIGINT, on_interrupt);
  Progress progress("points", points.size());
  std::atomic<std::size_t> next{0};
  std::mutex out;
  std::string failure;
  auto work = [&] {
    while (interrupts.load() == 0) {
      const std::size_t i = next.fetch_add(1);
      if (i >= points.size()) return;
      try {
        const Scenario scenario = load_point(file, text, base, points[i]);
        std::string lines;
        for (const auto& policy : scenario.policies) {
          lines += sweep_result_line(simulate(scenario, policy), points[i].index, plan.size(), points[i].settings, vary);
        }
        {
          std::lock_guard<std::mutex> lock(out);
          write_all(fd, lines, where);
        }
        progress.done(fmt::format("point {}: {}", points[i].index, points[i].label()));
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(out);
        if (failure.empty()) failure = fmt::format("point {} ({}): {}", points[i].index, points[i].label(), e.what());
        interrupts.store(1000);  // stop the others; what is written stays
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::min<int>(jobs, static_cast<int>(points.size())); ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  progress.finish();
  std::signal(SIGINT, SIG_DFL);
  if (fd != STDOUT_FILENO && ::close(fd) != 0 && failure.empty()) {
    failure = fmt::format("{}: write failed: {}", where, std::strerror(errno));
  }
  if (!failure.empty()) {
    throw std::runtime_error(
        to_file ? fmt::format("{}; the {} points finished are in {}", failure, progress.completed(), where) : failure);
  }
  if (interrupts.load() > 0) {
    fmt::print(stderr, "exsim sweep: interrupted: {} of {} points written to {}\n", progress.completed(), points.size(),
               where);
    return 130;
  }
  if (to_file) {
    std::error_code ec;
    std::filesystem::rename(where, output, ec);
    if (ec) throw std::runtime_error(fmt::format("{}: cannot rename {} into place: {}", output, where, ec.message()));
  }
  return kExitOk;
}

}  // namespace exsim::cli
