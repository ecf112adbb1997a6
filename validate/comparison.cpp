#include "validate/comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace exsim::validate {

double relative_error(double predicted, double measured) {
  if (measured == 0) {
    if (predicted == 0) return 0;
    return predicted > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  }
  return (predicted - measured) / measured;
}

double largest_sender_peak(const RunResult& result) {
  Bytes peak = 0;
  for (const auto& h : result.hosts) peak = std::max(peak, h.sender_peak_bytes);
  return static_cast<double>(peak);
}

Comparison compare(std::string scenario_file, RunResult predicted, RunResult measured, CostProfile costs) {
  Comparison c;
  c.scenario_file = std::move(scenario_file);
  c.costs = std::move(costs);
  c.wall_error = relative_error(predicted.wall_s, measured.wall_s);
  c.rpcs_error = relative_error(static_cast<double>(predicted.rpcs), static_cast<double>(measured.rpcs));
  c.bytes_error = relative_error(predicted.bytes_wire, measured.bytes_wire);
  c.sender_peak_error = relative_error(largest_sender_peak(predicted), largest_sender_peak(measured));
  c.predicted = std::move(predicted);
  c.measured = std::move(measured);
  return c;
}

bool row_exceeds(const Comparison& c, const Thresholds& t) {
  return std::abs(c.wall_error) > t.wall_max_error || std::abs(c.rpcs_error) > t.rpcs_error ||
         std::abs(c.bytes_error) > t.bytes_error || std::abs(c.sender_peak_error) > t.sender_peak_error;
}

Verdict judge(const std::vector<Comparison>& comparisons, const Thresholds& t) {
  Verdict v;
  if (comparisons.empty()) {
    v.violations.push_back("no (scenario, policy) pairs were compared");
    return v;
  }
  std::vector<double> walls;
  for (const auto& c : comparisons) {
    if (!c.steady) {
      v.unjudged.push_back(fmt::format("{} / {}: {}", c.predicted.scenario, c.predicted.policy,
                                       c.unsteady_why.empty() ? "measured only on an unsteady machine" : c.unsteady_why));
      continue;
    }
    walls.push_back(std::abs(c.wall_error));
    v.rpcs_max_error = std::max(v.rpcs_max_error, std::abs(c.rpcs_error));
    v.bytes_max_error = std::max(v.bytes_max_error, std::abs(c.bytes_error));
    v.sender_peak_max_error = std::max(v.sender_peak_max_error, std::abs(c.sender_peak_error));
  }
  if (walls.empty() || static_cast<int>(v.unjudged.size()) > t.unjudged_max) {
    v.no_verdict = v.unjudged;
    if (walls.empty()) {
      v.no_verdict.push_back("no row judged");
    } else if (t.unjudged_max > 0) {
      v.no_verdict.push_back(fmt::format("{} of {} rows unjudged, more than the {} the thresholds allow",
                                         v.unjudged.size(), comparisons.size(), t.unjudged_max));
    }
  }
  if (walls.empty()) return v;
  const FigureSpread wall = spread_of(std::move(walls));
  v.wall_median_error = wall.median;
  v.wall_max_error = wall.max;

  auto check = [&](const char* what, double error, double limit) {
    if (!(error <= limit)) {
      v.violations.push_back(fmt::format("{} {:.1f}% exceeds the threshold of {:.1f}%", what, 100 * error, 100 * limit));
    }
  };
  check("median wall-clock error", v.wall_median_error, t.wall_median_error);
  check("largest wall-clock error", v.wall_max_error, t.wall_max_error);
  check("largest RPC count error", v.rpcs_max_error, t.rpcs_error);
  check("largest bytes-on-the-wire error", v.bytes_max_error, t.bytes_error);
  check("largest sender peak error", v.sender_peak_max_error, t.sender_peak_error);
  return v;
}

std::string comparisons_to_json(const std::vector<Comparison>& comparisons, const Thresholds& t,
                                const Verdict& v) {
  using ordered = nlohmann::ordered_json;
  auto error = [](double e) { return std::isfinite(e) ? ordered(e) : ordered(nullptr); };
  ordered rows = ordered::array();
  for (const auto& c : comparisons) {
    // The results writer's own text, so both halves read exactly as `simulate` and `run` write them.
    const ordered pair = ordered::parse(results_to_json({c.predicted, c.measured}));
    rows.push_back({{"scenario_file", c.scenario_file},
                    {"scenario", c.predicted.scenario},
                    {"policy", c.predicted.policy},
                    {"steady", c.steady},
                    {"error", {{"wall_s", error(c.wall_error)},
                               {"rpcs", error(c.rpcs_error)},
                               {"bytes_wire", error(c.bytes_error)},
                               {"sender_peak_bytes", error(c.sender_peak_error)}}},
                    {"costs", ordered::parse(cost_profile_json(c.costs, c.costs.source, {}, {}))},
                    {"predicted", pair[0]},
                    {"measured", pair[1]}});
    if (!c.steady && !c.unsteady_why.empty()) rows.back()["unsteady_why"] = c.unsteady_why;
    if (!c.cluster.empty()) rows.back()["cluster"] = ordered::parse(c.cluster);
    if (!c.run_wall_errors.empty()) {
      ordered runs = ordered::array();
      for (double e : c.run_wall_errors) runs.push_back(error(e));
      rows.back()["runs_wall_error"] = std::move(runs);
    }
    if (!c.set_aside_wall_errors.empty()) {
      ordered runs = ordered::array();
      for (double e : c.set_aside_wall_errors) runs.push_back(error(e));
      rows.back()["set_aside_wall_error"] = std::move(runs);
    }
    if (!c.slowdown.none()) {
      rows.back()["machine_slowdown"] = {{"compute", c.slowdown.compute}, {"calls", c.slowdown.calls}};
    }
  }
  ordered out = {{"thresholds", {{"wall_median_error", t.wall_median_error},
                                 {"wall_max_error", t.wall_max_error},
                                 {"rpcs_error", t.rpcs_error},
                                 {"bytes_error", t.bytes_error},
                                 {"sender_peak_error", t.sender_peak_error},
                                 {"unjudged_max", t.unjudged_max}}},
                 {"summary", {{"wall_median_error", v.wall_median_error},
                              {"wall_max_error", v.wall_max_error},
                              {"rpcs_max_error", v.rpcs_max_error},
                              {"bytes_max_error", v.bytes_max_error},
                              {"sender_peak_max_error", v.sender_peak_max_error},
                              {"passed", v.judged() ? ordered(v.passed()) : ordered(nullptr)},
                              {"violations", v.violations},
                              {"unjudged", v.unjudged},
                              {"no_verdict", v.no_verdict}}},
                 {"comparisons", rows}};
  return out.dump(2) + "\n";
}

}  // namespace exsim::validate
