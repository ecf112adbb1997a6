// Which policies run in which round of a validation on the real exchange.
//
// A round runs every policy still short of `repeat` steady runs once, in the
// suite's order. A run on an unsteady machine is set aside and made again in a
// later round: a busy spell of tens of seconds then costs the runs it touched,
// never the whole suite again. Each policy gets at most kTriesPerRun x `repeat`
// tries, and past the first `repeat` rounds no round starts once the time
// limit has passed since the first: `make test` stays bounded on a machine
// that never settles, and a policy left short gets no verdict.
#ifndef EXSIM_VALIDATE_RUN_SCHEDULE_H_
#define EXSIM_VALIDATE_RUN_SCHEDULE_H_

#include <chrono>
#include <cstddef>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/costs.h"

namespace exsim::validate {

// How many tries a policy gets per steady run wanted.
inline constexpr int kTriesPerRun = 4;

// How many steady runs a policy needs for a verdict when `repeat` were asked:
// a majority, whose median no single disturbed run decides (2 of 3). The
// schedule still makes runs again until `repeat` are steady, while time allows.
inline constexpr int steady_runs_for_verdict(int repeat) { return repeat / 2 + 1; }

// The machine's speed and the cost of a call between processes, by probes
// (transport/testbed/speed_probe.h, call_probe.h; larger is slower): around a
// run, the mean of those before and after it; for a round's costs, the median
// of those around their calibration. 0: not probed.
struct MachineProbes {
  double speed_us = 0, calls_us = 0;
};

// How much slower a run's machine was than its costs' (1 for a figure either
// of them lacks).
MachineSlowdown slowdown_of(const MachineProbes& run, const MachineProbes& costs);

// A run, and the round it ran in (whose calibrations give its costs).
struct RoundRun {
  int round = 0;
  RunResult result;
  MachineProbes probes;
};

// A policy's runs so far.
struct PolicyRuns {
  std::vector<RoundRun> steady;
  std::vector<RoundRun> set_aside;  // kept: a policy with no steady run still shows what was measured
  int tries = 0;
};

struct PolicyIndex {
  std::size_t scenario = 0;
  std::size_t policy = 0;
};

class RunSchedule {
 public:
  using Duration = std::chrono::steady_clock::duration;

  // policies[s]: how many policies scenario s has. time_limit 0: none.
  RunSchedule(const std::vector<std::size_t>& policies, int repeat, std::chrono::seconds time_limit);

  // Starts the next round: the policies it runs, in the suite's order; empty
  // when none wants a run, or when the time limit (`elapsed` since the first
  // round) stops it.
  std::vector<PolicyIndex> next_round(Duration elapsed);
  int round() const { return round_; }  // the round last started, from 0
  bool stopped_by_time_limit() const { return stopped_by_time_limit_; }

  // A run of the current round.
  void record(PolicyIndex index, RunResult result, bool steady, MachineProbes probes = {});
  // The costs did not hold over `round`: its steady runs are set aside, to be
  // made again. Returns how many.
  int set_aside_round(int round);

  const PolicyRuns& runs(PolicyIndex index) const { return runs_.at(index.scenario).at(index.policy); }
  PolicyRuns& runs(PolicyIndex index) { return runs_.at(index.scenario).at(index.policy); }
  bool short_of_runs(PolicyIndex index) const;  // fewer steady runs than `repeat`
  bool judgeable(PolicyIndex index) const;      // at least steady_runs_for_verdict(repeat)

 private:
  bool wants_a_run(const PolicyRuns& runs) const;

  std::vector<std::vector<PolicyRuns>> runs_;
  int repeat_;
  std::chrono::seconds time_limit_;
  int round_ = -1;
  bool stopped_by_time_limit_ = false;
};

}  // namespace exsim::validate

#endif  // EXSIM_VALIDATE_RUN_SCHEDULE_H_
