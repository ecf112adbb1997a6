#include "workflows/sweep_runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "workflows/parallel.h"
#include "models/base/error.h"
#include "models/base/json_reader.h"
#include "models/results/results.h"
#include "models/scenario/scenario_loader.h"
#include "sim/simulate.h"

namespace exsim::workflows {
namespace {

// Ctrl-C: the first stops taking new points; the second leaves at once.
// Lines are whole: each point's lines go out in one write(2).
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

// A scenario error of one point names the point, so that a bad value in a --vary list is found.
Scenario load_point(const std::string& file, const std::string& text, std::vector<std::string> overrides,
                    const SweepPoint& point) {
  for (const auto& o : point.overrides()) overrides.push_back(o);
  try {
    return parse_scenario(text, file, overrides);
  } catch (const InputError& e) {
    std::vector<std::string> messages;
    for (const auto& m : e.messages()) {
      messages.push_back(fmt::format("sweep point {} ({}): {}", point.index, point.label(), m));
    }
    throw InputError(messages);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("sweep point {} ({}): {}", point.index, point.label(), e.what()));
  }
}

}  // namespace

std::string scenario_text_with_policies(const std::string& file, const std::vector<std::string>& names) {
  const std::string text = read_scenario_file(file);
  if (names.empty()) return text;
  nlohmann::ordered_json doc = parse_json_text(text, file);
  if (doc.is_object() && doc.contains("policies") && doc["policies"].is_object()) {
    std::vector<std::string> known;
    for (const auto& [name, policy] : doc["policies"].items()) known.push_back(name);
    check_policy_names(names, known, file);
    nlohmann::ordered_json kept = nlohmann::ordered_json::object();
    for (const auto& [name, policy] : doc["policies"].items()) {
      if (std::find(names.begin(), names.end(), name) != names.end()) kept[name] = policy;
    }
    doc["policies"] = kept;
    doc.erase("notes");  // notes may name the policies left out
  }
  return doc.dump();
}

SweepRunner::SweepRunner(std::string file, std::string text, std::vector<std::string> set, SweepPlan plan,
                         Shard shard)
    : file_(std::move(file)), text_(std::move(text)), set_(std::move(set)), plan_(std::move(plan)) {
  // A value both set and varied would be varied, the --set lost without a word.
  for (const auto& value : set_) {
    const std::string key = value.substr(0, value.find('='));
    for (const auto& v : plan_.variations()) {
      if (v.key == key) throw UsageError(fmt::format("--set {}: {} is also varied (--vary {}=...)", value, key, key));
    }
  }
  // The scenario and --set alone: their errors are not a point's.
  policies_ = parse_scenario(text_, file_, set_).policies.size();
  for (std::size_t i = 0; i < plan_.size(); ++i) {
    if (!shard.holds(i)) continue;
    points_.push_back(plan_.point(i));
    load_point(file_, text_, set_, points_.back());
  }
}

SweepOutcome SweepRunner::run(int jobs, const std::optional<std::string>& output,
                              const std::function<void(const std::string&)>& done) {
  SweepOutcome outcome;
  outcome.where = output ? *output + ".partial" : "standard output";
  const int fd = output ? ::open(outcome.where.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644) : STDOUT_FILENO;
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot write: {}", outcome.where, std::strerror(errno)));
  std::vector<std::pair<std::string, std::vector<std::string>>> vary;
  for (const auto& v : plan_.variations()) vary.emplace_back(v.key, v.values);

  interrupts.store(0);
  const auto previous = std::signal(SIGINT, on_interrupt);
  std::mutex out;
  // What an earlier run finished goes first, as it was; then the other points.
  if (!resume_.lines.empty()) write_all(fd, resume_.lines, outcome.where);
  outcome.completed = resume_.done.size();
  std::vector<const SweepPoint*> todo;
  for (const SweepPoint& point : points_) {
    if (!resume_.done.count(point.index)) todo.push_back(&point);
  }
  const std::exception_ptr failure = for_each_parallel(
      todo.size(), jobs,
      [&](std::size_t i) {
        const SweepPoint& point = *todo[i];
        try {
          const Scenario scenario = load_point(file_, text_, set_, point);
          std::string lines;
          for (const auto& policy : scenario.policies) {
            lines += sweep_result_line(simulate(scenario, policy, simulate_), point.index, plan_.size(), point.settings, vary);
          }
          std::lock_guard<std::mutex> lock(out);
          write_all(fd, lines, outcome.where);
          ++outcome.completed;
          done(fmt::format("point {}: {}", point.index, point.label()));
        } catch (const std::exception& e) {
          throw std::runtime_error(fmt::format("point {} ({}): {}", point.index, point.label(), e.what()));
        }
      },
      [] { return interrupts.load() == 0; });
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      outcome.failure = e.what();  // what is written stays
    }
  }
  std::signal(SIGINT, previous);
  if (fd != STDOUT_FILENO && ::close(fd) != 0 && outcome.failure.empty()) {
    outcome.failure = fmt::format("{}: write failed: {}", outcome.where, std::strerror(errno));
  }
  outcome.interrupted = outcome.failure.empty() && interrupts.load() > 0;
  if (output && outcome.failure.empty() && !outcome.interrupted) {
    std::error_code ec;
    std::filesystem::rename(outcome.where, *output, ec);
    if (ec) {
      outcome.failure = fmt::format("{}: cannot rename {} into place: {}", *output, outcome.where, ec.message());
    } else {
      outcome.where = *output;
    }
  }
  return outcome;
}

}  // namespace exsim::workflows
