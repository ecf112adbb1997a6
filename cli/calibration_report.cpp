#include "cli/calibration_report.h"

#include <fmt/format.h>

#include "models/base/text_table.h"

namespace exsim::cli {

std::string render_calibration(const transport::Calibration& calibration) {
  Table table({"figure", "median", "min", "max", "spread"});
  for (const auto& [key, s] : calibration.spread) {
    const double spread = s.median != 0 ? (s.max - s.min) / s.median : 0;
    table.add_row({key, fmt::format("{:.4g}", s.median), fmt::format("{:.4g}", s.min), fmt::format("{:.4g}", s.max),
                   fmt::format("{:.1f}%{}", 100 * spread, spread > transport::kUnsteadyFigure ? " !" : "")});
  }
  table.add_row({"cores", fmt::format("{}", calibration.profile.cores), "", "", ""});
  std::string out = table.render();
  out += fmt::format("machine speed: a {:.0f} us probe, {:.1f}% apart over the repetitions kept\n", calibration.speed_us,
                     100 * calibration.speed_spread);
  for (const auto& w : calibration.warnings) out += fmt::format("warning: {}\n", w);
  return out;
}

}  // namespace exsim::cli
