#include "cli/sensitivity_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/base/text_table.h"
#include "models/results/sensitivity.h"

namespace exsim::cli {

std::string render_sensitivity(const std::vector<RunResult>& results) {
  const SensitivityVerdict verdict = sensitivity_verdict(results);
  if (verdict.fastest.empty()) return "";
  const RunResult& fastest = *std::find_if(results.begin(), results.end(),
                                           [&](const RunResult& r) { return r.policy == verdict.fastest; });
  const auto winner_at = [&](std::size_t c, bool cheap) {
    const RunResult* best = nullptr;
    for (const RunResult& r : results) {
      if (c >= r.sensitivity.size()) continue;
      const double wall = cheap ? r.sensitivity[c].wall_cheap_s : r.sensitivity[c].wall_dear_s;
      const double best_wall = best ? (cheap ? best->sensitivity[c].wall_cheap_s : best->sensitivity[c].wall_dear_s) : 0;
      if (!best || wall < best_wall) best = &r;
    }
    return best ? best->policy : "";
  };
  // Costs by how far they move the fastest policy, largest first.
  std::vector<std::size_t> order(fastest.sensitivity.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto swing = [&](std::size_t c) {
    return std::abs(fastest.sensitivity[c].wall_dear_s - fastest.sensitivity[c].wall_cheap_s);
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return swing(a) > swing(b); });
  Table table({"cost", "cheap end", "dear end", "fastest: cheap", "dear", fmt::format("{} wall", verdict.fastest),
               "moves it"});
  for (std::size_t c : order) {
    const CostSwing& s = fastest.sensitivity[c];
    table.add_row({s.cost, fmt::format("{:.4g}", s.cheap), fmt::format("{:.4g}", s.dear), winner_at(c, true),
                   winner_at(c, false), fmt::format("{:.3f}-{:.3f} s", s.wall_cheap_s, s.wall_dear_s),
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
