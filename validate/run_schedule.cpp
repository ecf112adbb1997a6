#include "validate/run_schedule.h"

#include <algorithm>
#include <iterator>

namespace exsim::validate {

RunSchedule::RunSchedule(const std::vector<std::size_t>& policies, int repeat, std::chrono::seconds time_limit)
    : repeat_(repeat), time_limit_(time_limit) {
  runs_.reserve(policies.size());
  for (std::size_t count : policies) runs_.emplace_back(count);
}

bool RunSchedule::wants_a_run(const PolicyRuns& runs) const {
  return static_cast<int>(runs.steady.size()) < repeat_ && runs.tries < kTriesPerRun * repeat_;
}

bool RunSchedule::short_of_runs(PolicyIndex index) const {
  return static_cast<int>(runs(index).steady.size()) < repeat_;
}

bool RunSchedule::judgeable(PolicyIndex index) const {
  return static_cast<int>(runs(index).steady.size()) >= steady_runs_for_verdict(repeat_);
}

std::vector<PolicyIndex> RunSchedule::next_round(Duration elapsed) {
  std::vector<PolicyIndex> wanted;
  for (std::size_t s = 0; s < runs_.size(); ++s) {
    for (std::size_t p = 0; p < runs_[s].size(); ++p) {
      if (wants_a_run(runs_[s][p])) wanted.push_back({s, p});
    }
  }
  if (wanted.empty()) return wanted;
  // The first `repeat` rounds are the measurement itself; the limit bounds
  // only the runs made again.
  if (round_ + 1 >= repeat_ && time_limit_.count() > 0 && elapsed >= time_limit_) {
    stopped_by_time_limit_ = true;
    return {};
  }
  ++round_;
  for (const PolicyIndex& index : wanted) ++runs(index).tries;
  return wanted;
}

MachineSlowdown slowdown_of(const MachineProbes& run, const MachineProbes& costs) {
  const auto ratio = [](double at_run, double at_costs) { return at_run > 0 && at_costs > 0 ? at_run / at_costs : 1.0; };
  return {ratio(run.speed_us, costs.speed_us), ratio(run.calls_us, costs.calls_us)};
}

void RunSchedule::record(PolicyIndex index, RunResult result, bool steady, MachineProbes probes) {
  PolicyRuns& r = runs(index);
  (steady ? r.steady : r.set_aside).push_back({round_, std::move(result), probes});
}

int RunSchedule::set_aside_round(int round) {
  int moved = 0;
  for (auto& scenario : runs_) {
    for (PolicyRuns& r : scenario) {
      const auto in_round = std::stable_partition(r.steady.begin(), r.steady.end(),
                                                  [&](const RoundRun& run) { return run.round != round; });
      moved += static_cast<int>(r.steady.end() - in_round);
      std::move(in_round, r.steady.end(), std::back_inserter(r.set_aside));
      r.steady.erase(in_round, r.steady.end());
    }
  }
  return moved;
}

}  // namespace exsim::validate
