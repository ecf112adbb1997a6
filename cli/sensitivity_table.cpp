#include "cli/sensitivity_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/base/text_table.h"
#include "models/results/sensitivity.h"

namespace exsim::cli {

std::string render_sensitivity(const std::vector<RunResult>& results) {
  const SensitivityVerdict verdict = sensitivity_verdict(results);
  if (verdict.fastest.empty()) return "";
  const RunResult& fastest = *std::find_if(results.begin(), results.end(),
                                           [&](const RunResult& r) { return r.policy == verdict.fastest; });
  // Costs by how far they move the fastest policy, largest first.
  const std::vector<std::size_t> order = costs_by_swing(fastest.sensitivity);
  Table table({"cost", "cheap end", "dear end", "fastest: cheap", "dear", fmt::format("{} wall", verdict.fastest),
               "moves it"});
  for (std::size_t c : order) {
    const CostSwing& s = fastest.sensitivity[c];
    table.add_row({s.cost, fmt::format("{:.4g}", s.cheap), fmt::format("{:.4g}", s.dear), verdict.fastest_at[c].cheap,
                   verdict.fastest_at[c].dear, fmt::format("{:.3f}-{:.3f} s", s.wall_cheap_s, s.wall_dear_s),
                   fmt::format("{:+.1f}% / {:+.1f}%", 100 * (s.wall_cheap_s / fastest.wall_s - 1),
                               100 * (s.wall_dear_s / fastest.wall_s - 1))});
  }
  if (fastest.wall_range.known()) {
    table.add_row({"every cost", "", "", "", "", fmt::format("{:.3f}-{:.3f} s", fastest.wall_range.cheap_s,
                                                             fastest.wall_range.dear_s),
                   fmt::format("{:+.1f}% / {:+.1f}%", 100 * (fastest.wall_range.cheap_s / fastest.wall_s - 1),
                               100 * (fastest.wall_range.dear_s / fastest.wall_s - 1))});
  }
  return fmt::format("\nwhat could change this answer: each cost alone at both ends of its range, then all at once\n"
                     "{}\n{}.\n",
                     table.render(), verdict.words());
}

}  // namespace exsim::cli
