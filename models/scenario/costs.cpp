#include "models/scenario/costs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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
      s.reject_unknown_keys({"median", "min", "max"});
      const FigureSpread f{s.required("median").number(0, 0), s.required("min").number(0, 0),
                           s.required("max").number(0, 0)};
      if (!(f.min <= f.median && f.median <= f.max)) {
        s.error("expected min <= median <= max");
        continue;
      }
      costs.spread[key] = f;
    }
  }
  return costs;
}

namespace {

// Whether more of the figure makes work cheaper (a rate, service threads).
bool more_is_cheaper(const CostFigure& figure) {
  using Reading = CostFigure::Reading;
  return figure.reading == Reading::kRate || figure.reading == Reading::kOptionalRate ||
         figure.reading == Reading::kCount;
}

}  // namespace

CostProfile cost_corner(const CostProfile& costs, CostCorner corner, double relative) {
  CostProfile out = costs;
  for (const CostFigure& figure : cost_figures()) {
    // The machine and the framing's bytes are not costs that vary.
    if (figure.summary == CostFigure::Summary::kNotMeasured || figure.reading == CostFigure::Reading::kBytes) continue;
    const double value = figure.get(costs);
    if (value <= 0) continue;  // free, or absent
    double low = 1, high = 1;  // factors on the value
    if (relative > 0) {
      low = 1 - relative;
      high = 1 + relative;
    } else if (const auto it = costs.spread.find(std::string(figure.key)); it != costs.spread.end()) {
      // The profile's value is the repetitions' median, or their least.
      const FigureSpread& s = it->second;
      const double kept = figure.summary == CostFigure::Summary::kLeast ? s.min : s.median;
      if (kept > 0) {
        low = s.min / kept;
        high = s.max / kept;
      }
    }
    const bool up = (corner == CostCorner::kCheap) == more_is_cheaper(figure);
    double moved = value * (up ? high : low);
    if (figure.integral()) moved = std::max(1.0, std::round(moved));
    if (figure.reading == CostFigure::Reading::kRate) moved = std::max(1.0, moved);
    figure.set(out, moved);
  }
  return out;
}

bool has_cost_uncertainty(const CostProfile& costs, double relative) {
  if (relative > 0) return true;
  for (const auto& [key, s] : costs.spread) {
    if (s.min < s.median || s.max > s.median) return true;
  }
  return false;
}

}  // namespace exsim
