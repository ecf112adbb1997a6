#include "models/scenario/costs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/base/json_reader.h"
#include "models/scenario/cost_figures.h"
#include "models/scenario/loader_parts.h"

namespace exsim {

FigureSpread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

std::string cost_profile_json(const CostProfile& profile, const std::string& description,
                              const std::map<std::string, std::string>& sources,
                              const std::map<std::string, FigureSpread>& spread,
                              const std::vector<std::string>& warnings) {
  nlohmann::ordered_json out;
  out["description"] = description;
  // Figures at 0 (free) are written too, but for those that say nothing at 0:
  // a key a profile leaves out takes the reference profile's value when read.
  for (const CostFigure& figure : cost_figures()) {
    const double value = figure.get(profile);
    using Written = CostFigure::Written;
    if ((figure.written == Written::kWhenNonNegative && value < 0) ||
        (figure.written == Written::kWhenPositive && value <= 0)) {
      continue;
    }
    if (figure.integral()) {
      out[std::string(figure.key)] = static_cast<std::int64_t>(std::llround(value));
    } else {
      out[std::string(figure.key)] = value;
    }
  }
  if (!sources.empty()) out["sources"] = sources;
  if (!spread.empty()) {
    nlohmann::ordered_json figures = nlohmann::ordered_json::object();
    for (const auto& [key, s] : spread) figures[key] = {{"median", s.median}, {"min", s.min}, {"max", s.max}};
    out["spread"] = figures;
  }
  if (!warnings.empty()) out["warnings"] = warnings;
  return out.dump(2) + "\n";
}

FigureSpread read_figure_spread(const JsonNode& node) {
  if (!node.expect_object()) return {};
  node.reject_unknown_keys({"median", "min", "max"});
  const FigureSpread f{node.required("median").number(0, 0), node.required("min").number(0, 0),
                       node.required("max").number(0, 0)};
  if (!(f.min <= f.median && f.median <= f.max)) node.error("expected min <= median <= max");
  return f;
}

CostProfile read_costs(const JsonNode& node, const CostProfile& base) {
  CostProfile costs = base;
  if (!node.expect_object()) return costs;
  std::vector<std::string_view> known;
  for (const CostFigure& figure : cost_figures()) known.push_back(figure.key);
  known.insert(known.end(), {"description", "sources", "spread", "warnings"});
  node.reject_unknown_keys(known);
  constexpr double kMaxUs = 1e7;  // 10 s per RPC
  for (const CostFigure& figure : cost_figures()) {
    JsonNode value = node.member(figure.key);
    const double fallback = figure.get(base);
    using Reading = CostFigure::Reading;
    switch (figure.reading) {
      case Reading::kRate:
        if (!value.present() && fallback <= 0) value = node.required(figure.key);
        figure.set(costs, value.number(fallback, 1.0));
        break;
      case Reading::kOptionalRate:  // 0: free
        figure.set(costs, value.number(fallback, 0));
        break;
      case Reading::kMicros:
        figure.set(costs, value.number(fallback, 0, false, kMaxUs));
        break;
      case Reading::kNanos:
        figure.set(costs, value.number(fallback, 0, false, 1e6));
        break;
      case Reading::kBusyMicros:
        if (value.present()) figure.set(costs, value.number(0, 0, false, kMaxUs));
        break;
      case Reading::kBytes:
        figure.set(costs, static_cast<double>(value.size(static_cast<Bytes>(fallback), 0, kMiB)));
        break;
      case Reading::kCount:
        figure.set(costs, static_cast<double>(value.integer(static_cast<std::int64_t>(fallback), 0, 1 << 16)));
        break;
      case Reading::kCores:
        figure.set(costs, value.present() && !value.json().is_null() ? static_cast<double>(value.integer(0, 1, 4096)) : 0);
        break;
      case Reading::kCacheBytes:
        figure.set(costs, static_cast<double>(value.size(static_cast<Bytes>(fallback), 0, Bytes{1} << 40)));
        break;
      case Reading::kStreams:
        figure.set(costs, value.number(fallback, 0, false, 65536));
        break;
      case Reading::kShare:
        figure.set(costs, value.number(fallback, 0, false, 1));
        break;
    }
  }
  JsonNode sources = node.member("sources");
  if (sources.present() && sources.expect_object()) {
    for (const auto& key : sources.keys()) sources.member(key).string();
  }
  node.member("description").string();
  // A spread from another file describes that file's figures: a profile read
  // over a base keeps only its own.
  costs.spread.clear();
  JsonNode spread = node.member("spread");
  if (spread.present() && spread.expect_object()) {
    for (const auto& key : spread.keys()) {
      const JsonNode s = spread.member(key);
      if (!find_cost_figure(key)) {
        s.error("not a figure of a costs profile");
        continue;
      }
      if (!s.expect_object()) continue;
      const FigureSpread f = read_figure_spread(s);
      if (f.min <= f.median && f.median <= f.max) costs.spread[key] = f;
    }
  }
  return costs;
}

namespace {

// Whether more of the figure makes work cheaper (a rate, service threads).
bool more_is_cheaper(const CostFigure& figure) {
  using Reading = CostFigure::Reading;
  return figure.reading == Reading::kRate || figure.reading == Reading::kOptionalRate ||
         figure.reading == Reading::kCount || figure.reading == Reading::kCacheBytes ||
         figure.reading == Reading::kStreams;
}

}  // namespace

std::optional<FigureEnds> figure_ends(const CostProfile& costs, const CostFigure& figure, double relative) {
  // The machine and the framing's bytes are not costs that vary.
  if (figure.summary == CostFigure::Summary::kNotMeasured || figure.reading == CostFigure::Reading::kBytes) {
    return std::nullopt;
  }
  const double value = figure.get(costs);
  const auto spread = costs.spread.find(std::string(figure.key));
  double low = value, high = value;
  if (relative > 0 && value > 0) {
    low = value * (1 - relative);
    high = value * (1 + relative);
  } else if (spread != costs.spread.end()) {
    // The profile's value is the repetitions' median, or their least: its
    // range moves with the figure as the scenario has it (a --set moves it
    // too), but for a figure at 0, whose range is where it could be instead.
    // A call's CPU among many calls, or taken by a busy thread, is
    // rpc_cpu_us when the profile has none: its range is then a share of that.
    const FigureSpread& sp = spread->second;
    const double kept = figure.summary == CostFigure::Summary::kLeast ? sp.min : sp.median;
    const double as_is = figure.reading == CostFigure::Reading::kBusyMicros && value < 0 ? costs.rpc_cpu_us : value;
    if (kept > 0 && as_is > 0) {
      low = as_is * sp.min / kept;
      high = as_is * sp.max / kept;
    } else {
      low = sp.min;
      high = sp.max;
    }
  }
  const auto tidy = [&](double v) {
    if (figure.integral()) v = std::max(1.0, std::round(v));
    if (figure.reading == CostFigure::Reading::kRate) v = std::max(1.0, v);
    if (figure.reading == CostFigure::Reading::kShare) v = std::min(1.0, v);
    return std::max(0.0, v);
  };
  low = tidy(low);
  high = tidy(high);
  if (!(low < high)) return std::nullopt;
  return more_is_cheaper(figure) ? FigureEnds{high, low} : FigureEnds{low, high};
}

CostProfile cost_corner(const CostProfile& costs, CostCorner corner, double relative) {
  CostProfile out = costs;
  // Each figure's ends from the corner as far as it is set: a figure's range
  // depends on its own value alone, but for the calls' figures among many
  // (kBusyMicros, after rpc_cpu_us), whose range without a value of their
  // own is a share of rpc_cpu_us at the corner.
  for (const CostFigure& figure : cost_figures()) {
    if (const auto ends = figure_ends(out, figure, relative)) {
      figure.set(out, corner == CostCorner::kCheap ? ends->cheap : ends->dear);
    }
  }
  return out;
}

bool moves_with_calls(const CostFigure& figure) {
  return figure.key.starts_with("rpc_") || figure.key == "sender_wake_us";
}

double at_factor(const CostFigure& figure, double value, double factor) {
  using Reading = CostFigure::Reading;
  if (value <= 0) return value;  // free, or none (rpc_cpu_busy_us < 0)
  switch (figure.reading) {
    case Reading::kRate:
    case Reading::kOptionalRate:
      return std::max(1.0, value / factor);
    case Reading::kMicros:
    case Reading::kNanos:
    case Reading::kBusyMicros:
      return value * factor;
    default:
      return value;  // not work: a size, a count, the machine, a share
  }
}

CostProfile at_slowdown(const CostProfile& costs, const MachineSlowdown& slowdown) {
  CostProfile out = costs;
  for (const CostFigure& figure : cost_figures()) {
    figure.set(out, at_factor(figure, figure.get(costs), moves_with_calls(figure) ? slowdown.calls : slowdown.compute));
  }
  return out;
}

bool has_cost_uncertainty(const CostProfile& costs, double relative) {
  for (const CostFigure& figure : cost_figures()) {
    if (figure_ends(costs, figure, relative)) return true;
  }
  return false;
}

}  // namespace exsim
