// What the costs' ranges do to the choice between policies: the results of
// `simulate --sensitivity` (each cost alone at both ends of its range, then
// all together: RunResult::sensitivity and wall_range) read as a user reads
// them. Which policy is fastest as simulated, whether it stays the fastest at
// every end, and, when it does not, which costs decide and what wins instead.
// The same words serve simulate, the report and advise.
#ifndef EXSIM_MODELS_RESULTS_SENSITIVITY_H_
#define EXSIM_MODELS_RESULTS_SENSITIVITY_H_

#include <string>
#include <vector>

#include "models/results/results.h"

namespace exsim {

// Another policy ahead by this share or less of the wall-clock is no turn of
// the choice: a tie the simulation cannot tell apart from noise in its inputs.
inline constexpr double kTieMargin = 0.005;

struct SensitivityVerdict {
  std::string fastest;  // the choice judged: the fastest as simulated, or the pick; empty without results
  bool picked = false;  // `fastest` is a pick made by another rule, not the fastest
  double margin = kTieMargin;
  // One end of one cost's range (or of all together: cost "every cost") at
  // which another policy is the fastest, and by how much it beats `fastest` there.
  struct Turn {
    std::string cost;
    bool cheap_end = true;
    std::string instead;
    double lead = 0;  // (wall of `fastest` - wall of `instead`) / wall of `fastest`, at that end
  };
  std::vector<Turn> turns;  // leads beyond `margin`
  std::vector<Turn> ties;   // another policy ahead by `margin` or less: not told apart
  // Per cost (in the swings' order): the fastest policy at its cheap and at its dear end.
  struct Ends {
    std::string cheap, dear;
  };
  std::vector<Ends> fastest_at;
  int costs_moved = 0;      // costs with a range that were moved alone
  int policies = 0;         // policies compared
  bool holds() const { return turns.empty(); }
  // "128K is the fastest at both ends of each of 19 costs' ranges, and with all
  // at once" or "the choice turns on cache_bytes (at its dear end 64K is
  // fastest, by 2.1%), ...".
  std::string words() const;
};

// A policy's wall-clock as simulated, at the costs' corners (-1: not
// simulated) and with each cost alone at both ends: a result's or a report
// entry's, so that both are judged alike.
struct SensitivityRow {
  std::string policy;
  double wall_s = 0, wall_cheap_s = -1, wall_dear_s = -1;
  const std::vector<CostSwing>* swings = nullptr;
};
std::vector<SensitivityRow> sensitivity_rows(const std::vector<RunResult>& results);

// Over the rows that carry a sensitivity (the same costs in each); those
// without one are left out. The choice judged is the fastest as simulated, or
// `pick` when given (a choice made by another rule, such as advise's least
// memory within a tie); another policy ahead of it by `margin` or less is a tie.
SensitivityVerdict sensitivity_verdict(const std::vector<SensitivityRow>& rows, const std::string& pick = "",
                                       double margin = kTieMargin);
inline SensitivityVerdict sensitivity_verdict(const std::vector<RunResult>& results) {
  return sensitivity_verdict(sensitivity_rows(results));
}

// The indices of `swings`, the cost that moves the wall-clock the most first
// (the order the table and the tornado show them in).
std::vector<std::size_t> costs_by_swing(const std::vector<CostSwing>& swings);

}  // namespace exsim

#endif  // EXSIM_MODELS_RESULTS_SENSITIVITY_H_
