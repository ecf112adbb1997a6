#include "cli/validate_report.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "models/base/size.h"
#include "models/base/text_table.h"
#include "models/base/text_units.h"

namespace exsim::cli {
namespace {

using validate::Comparison;
using validate::relative_error;

std::string render(const Table& table, ReportFormat format) {
  return format == ReportFormat::kMarkdown ? table.render_markdown() : table.render();
}

std::string heading(const std::string& title, ReportFormat format) {
  return format == ReportFormat::kMarkdown ? fmt::format("\n#### {}\n\n", title) : fmt::format("\n{}\n", title);
}

// Where one (scenario, policy) differs: its exchanges, CPU by stage, RPC network time.
std::string render_stages(const Comparison& c, ReportFormat format) {
  std::string out = heading(fmt::format("{} / {}: where the model and the measurement differ", c.predicted.scenario,
                                        c.predicted.policy),
                            format);
  Table exchanges({"exchange", "wall pred", "wall meas", "error", "RPCs pred", "RPCs meas", "blocked pred",
                   "blocked meas", "deferred pred", "deferred meas"});
  for (std::size_t i = 0; i < c.predicted.exchanges.size() && i < c.measured.exchanges.size(); ++i) {
    const auto& p = c.predicted.exchanges[i];
    const auto& m = c.measured.exchanges[i];
    exchanges.add_row({fmt::format("{}/{}#{}", p.query, p.id, p.repetition), format_seconds(p.wall_s),
                       format_seconds(m.wall_s), format_signed_percent(relative_error(p.wall_s, m.wall_s)),
                       fmt::format("{}", p.rpcs), fmt::format("{}", m.rpcs), format_seconds(p.sender_blocked_s),
                       format_seconds(m.sender_blocked_s), fmt::format("{}", p.deferred_rpcs),
                       fmt::format("{}", m.deferred_rpcs)});
  }
  out += render(exchanges, format);
  Table cpu({"CPU by stage", "predicted", "measured", "error"});
  const CpuByStage& p = c.predicted.cpu_s;
  const CpuByStage& m = c.measured.cpu_s;
  const std::pair<const char*, double CpuByStage::*> stages[] = {
      {"produce", &CpuByStage::produce},         {"serialize", &CpuByStage::serialize},
      {"compress", &CpuByStage::compress},       {"rpc", &CpuByStage::rpc},
      {"decompress", &CpuByStage::decompress},   {"deserialize", &CpuByStage::deserialize},
      {"consume", &CpuByStage::consume}};
  double predicted_total = 0, measured_total = 0;
  for (const auto& [name, field] : stages) {
    cpu.add_row({name, format_seconds(p.*field), format_seconds(m.*field),
                 format_signed_percent(relative_error(p.*field, m.*field))});
    predicted_total += p.*field;
    measured_total += m.*field;
  }
  // The wall-clock error follows this one most closely (docs/validation.md).
  cpu.add_row({"all stages", format_seconds(predicted_total), format_seconds(measured_total),
               format_signed_percent(relative_error(predicted_total, measured_total))});
  out += "\n";
  out += render(cpu, format);
  // A call's time as Impala's profile splits it: network, then receiver; and
  // what neither counter sees, the blocked sender's wake-up after the response.
  Table calls({"RPC time", "predicted", "measured", "error"});
  const auto add = [&](const char* what, CallTimes RunResult::*times) {
    const CallTimes& predicted = c.predicted.*times;
    const CallTimes& measured = c.measured.*times;
    for (const auto& [name, field] : {std::pair{"mean", &CallTimes::mean_us}, std::pair{"p50", &CallTimes::p50_us},
                                      std::pair{"p99", &CallTimes::p99_us}}) {
      calls.add_row({fmt::format("{} {}", what, name), fmt::format("{:.0f} us", predicted.*field),
                     fmt::format("{:.0f} us", measured.*field),
                     format_signed_percent(relative_error(predicted.*field, measured.*field))});
    }
  };
  add("network", &RunResult::rpc_network);
  add("receiver", &RunResult::rpc_receiver);
  add("sender wake-up", &RunResult::sender_wake);
  out += "\n";
  out += render(calls, format);
  return out;
}

// What bounded the run, predicted and measured: one name when they agree.
std::string bounds(const Comparison& c) {
  const TimeByBound p = c.predicted.sender_time(), m = c.measured.sender_time();
  if (p.empty() || m.empty()) return "-";
  if (p.largest() == m.largest()) return std::string(in_words(p.largest()));
  return fmt::format("{} / {}", in_words(p.largest()), in_words(m.largest()));
}

// How far the costs were moved to the machine's speed around each run: the
// range of each factor over the rows moved (a cluster has no call probes:
// its calls' factor, always 1, is left out), "" when none was.
std::string machine_slowdowns(const std::vector<Comparison>& comparisons) {
  std::vector<double> compute, calls;
  for (const auto& c : comparisons) {
    if (c.slowdown.none()) continue;
    compute.push_back(c.slowdown.compute);
    calls.push_back(c.slowdown.calls);
  }
  if (compute.empty()) return "";
  const FigureSpread by_compute = spread_of(compute), by_calls = spread_of(calls);
  std::string factors = fmt::format("compute x{:.2f}-{:.2f}", by_compute.min, by_compute.max);
  if (by_calls.min != 1 || by_calls.max != 1) {
    factors += fmt::format(", calls between processes x{:.2f}-{:.2f}", by_calls.min, by_calls.max);
  }
  return fmt::format("\nthe machine's speed around {} of {} runs, against its costs' calibration: {}; each run's "
                     "costs moved by its own (the rows' \"machine_slowdown\")\n",
                     compute.size(), comparisons.size(), factors);
}

}  // namespace

std::string render_validation(const std::vector<Comparison>& comparisons, const validate::Suite& suite,
                              const validate::Verdict& verdict, const std::string& profile_source,
                              ReportFormat format) {
  Table table({"scenario / policy", "wall pred", "wall meas", "error", "bound by (pred / meas)", "RPCs pred", "RPCs meas", "error", "wire pred",
               "wire meas", "error", "peak pred", "peak meas", "error"});
  for (const auto& c : comparisons) {
    table.add_row({c.predicted.scenario + " / " + c.predicted.policy + (c.steady ? "" : " (unjudged)"),
                   format_seconds(c.predicted.wall_s), format_seconds(c.measured.wall_s),
                   format_signed_percent(c.wall_error), bounds(c), fmt::format("{}", c.predicted.rpcs),
                   fmt::format("{}", c.measured.rpcs), format_signed_percent(c.rpcs_error),
                   human_bytes(c.predicted.bytes_wire), human_bytes(c.measured.bytes_wire),
                   format_signed_percent(c.bytes_error), human_bytes(validate::largest_sender_peak(c.predicted)),
                   human_bytes(validate::largest_sender_peak(c.measured)), format_signed_percent(c.sender_peak_error)});
  }
  std::string out;
  if (format == ReportFormat::kMarkdown) out += "### exsim validate: the model against the real exchange\n\n";
  out += fmt::format("costs profile: {}; thresholds: {}\n\n", profile_source, suite.thresholds_source);
  out += render(table, format);
  const validate::Thresholds& t = suite.thresholds;
  Table summary({"error (absolute)", "value", "threshold"});
  summary.add_row({"wall-clock, median", fmt::format("{:.1f}%", 100 * verdict.wall_median_error),
                   fmt::format("{:.1f}%", 100 * t.wall_median_error)});
  summary.add_row({"wall-clock, largest", fmt::format("{:.1f}%", 100 * verdict.wall_max_error),
                   fmt::format("{:.1f}%", 100 * t.wall_max_error)});
  summary.add_row({"RPCs, largest", fmt::format("{:.2f}%", 100 * verdict.rpcs_max_error),
                   fmt::format("{:.1f}%", 100 * t.rpcs_error)});
  summary.add_row({"bytes on the wire, largest", fmt::format("{:.2f}%", 100 * verdict.bytes_max_error),
                   fmt::format("{:.1f}%", 100 * t.bytes_error)});
  summary.add_row({"sender peak, largest", fmt::format("{:.1f}%", 100 * verdict.sender_peak_max_error),
                   fmt::format("{:.1f}%", 100 * t.sender_peak_error)});
  out += "\n";
  out += render(summary, format);
  std::vector<std::string> differ;
  std::size_t compared = 0;
  for (const auto& c : comparisons) {
    const TimeByBound p = c.predicted.sender_time(), m = c.measured.sender_time();
    if (p.empty() || m.empty()) continue;
    ++compared;
    if (p.largest() != m.largest()) {
      differ.push_back(fmt::format("{} / {}: predicted {}, measured {}", c.predicted.scenario, c.predicted.policy,
                                   describe_bound(p), describe_bound(m)));
    }
  }
  if (compared > 0) {
    // Not a threshold: a run near the line between two bounds may fall either
    // side; but a model bounded by the wrong thing is wrong for the right figures.
    out += fmt::format("\nbound by: the model and the measurement agree on {} of {} runs\n", compared - differ.size(),
                       compared);
    for (const auto& d : differ) out += fmt::format("{}{}\n", format == ReportFormat::kMarkdown ? "- " : "  ", d);
  }
  out += machine_slowdowns(comparisons);
  const char* item = format == ReportFormat::kMarkdown ? "- " : "  ";
  if (!verdict.judged()) {
    out += "\nNO VERDICT: the machine was too busy or too noisy while the real exchange ran, so these errors say "
           "nothing about the model:\n";
    for (const auto& why : verdict.no_verdict) out += item + why + "\n";
    return out;
  }
  if (!verdict.unjudged.empty()) {
    out += fmt::format("\nNOT JUDGED: the machine was too busy or too noisy for these rows; the verdict is the "
                       "other rows' (the thresholds allow {} unjudged):\n",
                       t.unjudged_max);
    for (const auto& why : verdict.unjudged) out += item + why + "\n";
  }
  out += verdict.passed() ? "\nPASS: every error within its threshold\n" : "\nFAIL:\n";
  for (const auto& v : verdict.violations) out += item + v + "\n";
  std::vector<const Comparison*> shown;
  for (const auto& c : comparisons) {
    if (c.steady && validate::row_exceeds(c, t)) shown.push_back(&c);
  }
  if (!verdict.passed() && shown.empty()) {
    // A median beyond its threshold, no row beyond its own: the rows furthest
    // off say whether one stage or everything was off.
    for (const auto& c : comparisons) {
      if (c.steady) shown.push_back(&c);
    }
    std::sort(shown.begin(), shown.end(),
              [](const Comparison* a, const Comparison* b) { return std::abs(a->wall_error) > std::abs(b->wall_error); });
    shown.resize(std::min<std::size_t>(shown.size(), 3));
  }
  for (const Comparison* c : shown) out += render_stages(*c, format);
  return out;
}

}  // namespace exsim::cli
