#include "models/results/sensitivity.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace exsim {
namespace {

// The fastest of `rows` by `wall`.
template <class Wall>
const SensitivityRow* fastest_by(const std::vector<const SensitivityRow*>& rows, Wall wall) {
  const SensitivityRow* best = nullptr;
  for (const SensitivityRow* r : rows) {
    if (!best || wall(*r) < wall(*best)) best = r;
  }
  return best;
}

}  // namespace

std::vector<SensitivityRow> sensitivity_rows(const std::vector<RunResult>& results) {
  std::vector<SensitivityRow> rows;
  for (const RunResult& r : results) {
    rows.push_back({r.policy, r.wall_s, r.wall_range.known() ? r.wall_range.cheap_s : -1,
                    r.wall_range.known() ? r.wall_range.dear_s : -1, &r.sensitivity});
  }
  return rows;
}

SensitivityVerdict sensitivity_verdict(const std::vector<SensitivityRow>& rows, const std::string& pick, double margin) {
  SensitivityVerdict v;
  v.margin = margin;
  std::vector<const SensitivityRow*> competing;
  for (const SensitivityRow& r : rows) {
    if (r.swings && !r.swings->empty()) competing.push_back(&r);
  }
  if (competing.empty()) return v;
  v.policies = static_cast<int>(competing.size());
  const SensitivityRow* central = fastest_by(competing, [](const SensitivityRow& r) { return r.wall_s; });
  for (const SensitivityRow* r : competing) {
    if (!pick.empty() && r->policy == pick) central = r, v.picked = true;
  }
  v.fastest = central->policy;
  const std::size_t costs = central->swings->size();
  v.costs_moved = static_cast<int>(costs);
  // The fastest at one end; a turn or a tie when it is not the choice judged.
  const auto turn = [&](const std::string& cost, bool cheap_end, auto wall) {
    const SensitivityRow* best = fastest_by(competing, wall);
    if (best != central && wall(*best) < wall(*central)) {
      const double lead = (wall(*central) - wall(*best)) / wall(*central);
      (lead > margin ? v.turns : v.ties).push_back({cost, cheap_end, best->policy, lead});
    }
    return best->policy;
  };
  for (std::size_t c = 0; c < costs; ++c) {
    const auto at = [c](const SensitivityRow& r, bool cheap) {
      if (c >= r.swings->size()) return r.wall_s;
      return cheap ? (*r.swings)[c].wall_cheap_s : (*r.swings)[c].wall_dear_s;
    };
    const std::string& cost = (*central->swings)[c].cost;
    v.fastest_at.push_back({turn(cost, true, [&](const SensitivityRow& r) { return at(r, true); }),
                            turn(cost, false, [&](const SensitivityRow& r) { return at(r, false); })});
  }
  if (std::all_of(competing.begin(), competing.end(), [](const SensitivityRow* r) { return r->wall_cheap_s >= 0; })) {
    turn("every cost", true, [](const SensitivityRow& r) { return r.wall_cheap_s; });
    turn("every cost", false, [](const SensitivityRow& r) { return r.wall_dear_s; });
  }
  return v;
}

std::string SensitivityVerdict::words() const {
  if (fastest.empty()) return "";
  std::string tied;
  if (!ties.empty()) {
    std::vector<std::string> names;
    for (const Turn& t : ties) {
      if (std::find(names.begin(), names.end(), t.instead) == names.end()) names.push_back(t.instead);
    }
    std::string list;
    for (std::size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
    tied = fmt::format(" ({} ahead by {:.1f}% at most at {} end(s): a tie)", list, 100 * margin, ties.size());
  }
  if (holds()) {
    return fmt::format("{} is {} at both ends of each of {} costs' ranges, moved one at a time and all at once{}",
                       fastest, picked ? "the pick" : "the fastest", costs_moved, tied);
  }
  std::string out = fmt::format("{} is {}, but the choice turns on ", fastest, picked ? "the pick" : "the fastest as simulated");
  for (std::size_t i = 0; i < turns.size(); ++i) {
    const Turn& t = turns[i];
    out += fmt::format("{}{} (at its {} end {} is the fastest, by {:.1f}%)", i ? "; " : "", t.cost,
                       t.cheap_end ? "cheap" : "dear", t.instead, 100 * t.lead);
  }
  return out + tied;
}

std::vector<std::size_t> costs_by_swing(const std::vector<CostSwing>& swings) {
  std::vector<std::size_t> order(swings.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto swing = [&](std::size_t c) { return std::abs(swings[c].wall_dear_s - swings[c].wall_cheap_s); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return swing(a) > swing(b); });
  return order;
}

}  // namespace exsim
