#include "models/scenario/costs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "models/scenario/cost_figures.h"

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

}  // namespace exsim
