// The real half of `exsim validate` on one machine: the suite's policies run on the real exchange
// in rounds (each runs once every policy still short of steady runs: validate/run_schedule.h), with
// this machine's costs calibrated before the first round and after each, and a speed probe and a
// call probe (transport/testbed/call_probe.h) before and after every run. Each run is simulated with
// the costs around its own round, moved to the machine's speed and call cost around the run
// (at_slowdown), and per policy the round of median error counts: a slowdown of the machine that
// lasts tens of seconds touches one round of a policy, not all of them. A run is set aside and made
// again in a later round when its probes strayed from the calibration's and disagree with each other
// (the machine changed during it), agree on a machine further than it was checked to scale
// (transport/testbed/probe_limits.h), or other processes took its CPU (transport/testbed/cpu_set.h: CoreShare). A round whose calibration after
// it was unsteady or found the speed changed takes the costs of the one before it alone (each run
// was held to those); that one unsteady, the costs of the one after it alone; and its runs are set
// aside only when both were unsteady (choose_round_costs). A policy
// left without a majority of its steady runs when its tries or the time limit run out is not judged:
// the machine was too busy or too noisy, which is said, never reported as a model error.
#ifndef EXSIM_WORKFLOWS_SUITE_MEASUREMENT_H_
#define EXSIM_WORKFLOWS_SUITE_MEASUREMENT_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/scenario.h"
#include "transport/calibration/calibrate.h"
#include "transport/testbed/probe_limits.h"
#include "validate/run_schedule.h"

namespace exsim::workflows {

struct LoadedScenario {
  std::string file;
  std::string text;
  Scenario scenario;
};

// A real cluster to run on (validate --hosts): agents already running there,
// serving coordinators one after another (agent --keep-serving); each scenario
// runs on the first of them, its cluster the one measured (calibrate --hosts),
// with no delay lines or NIC caps: the network is the cluster's own.
struct RealCluster {
  std::string hosts_file;
  std::string token;
  std::string cluster_file;
  std::string cluster_text;  // the "cluster" object's JSON
  // Each agent's speed probe when its costs were calibrated (calibrate
  // --hosts, "measured"."speed_probe_us"; -1 for none): a run's costs are
  // moved to its hosts' speeds around it (cluster_speed). Empty: runs are not
  // held to it.
  std::vector<double> speed_probe_us;
  bool hold_cores_awake = true;  // the agents hold their cores awake (transport/testbed/awake_cores.h)
};

struct MeasureOptions {
  int repeat = 3;            // steady runs wanted per policy: the rounds
  int repetitions = 2;       // calibration repetitions per bracket (without a profile)
  bool calibrate = true;     // false: a fixed profile, probes only
  std::chrono::seconds timeout{300};
  // Past the first `repeat` rounds, no round starts to make runs again once
  // this much time has passed since the first (0: no limit; validate/run_schedule.h).
  std::chrono::seconds time_limit{0};
  // On a real cluster rather than this machine's loopback. The probes of this
  // machine's speed and calls, and its CPU's share, say nothing of the
  // cluster's hosts: a run there is set aside for a stall, or for a host whose
  // own speed probes around it cannot say its speed (unscalable).
  std::optional<RealCluster> real_cluster;
};

struct MeasuredScenario {
  std::vector<std::vector<validate::RoundRun>> runs;  // per policy: its steady runs
  // Per policy: its runs set aside, kept so that a policy with no steady run
  // still shows what was measured (flagged, never judged).
  std::vector<std::vector<validate::RoundRun>> set_aside;
  // Per policy: why it gets no verdict, too few runs on a steady machine ("" when it gets one).
  std::vector<std::string> unjudged;
};

struct MeasuredSuite {
  std::vector<MeasuredScenario> scenarios;  // in the suite's order
  // Calibrate only: every bracket's repetitions, and per round the costs of
  // the brackets before and after it (their medians).
  transport::CalibrationSamples calibration;
  std::vector<CostProfile> round_costs;
  // Per round: the speed and call cost its costs (or, with a fixed profile,
  // the round's start) were probed at; each run's costs are moved to its own
  // (models/scenario/costs.h: at_slowdown).
  std::vector<validate::MachineProbes> round_probes;
};

// The costs a round's runs are judged with, from the calibrations before and
// after it. Every run was held, by its own probes, to the speed and call cost
// of the one before (`start`), and its costs are moved to its probes against
// `probes`. Both together when both were steady and the machine kept its speed
// over the round; else the one before alone when it was steady; else the one
// after alone when it was and the machine's speed had moved by no more than
// transport::kScalableSlowdown (the runs' own probes move its costs to them, as they
// would the one before's); else the round's steady runs are set aside.
struct RoundCosts {
  CostProfile profile;
  validate::MachineProbes probes;
  bool set_aside = false;
  std::string note;  // why not both together, for stderr; "" when both
};
RoundCosts choose_round_costs(const transport::CalibrationSamples& before, const transport::CalibrationSamples& after,
                              const validate::MachineProbes& start);

// A cluster's run against the speeds its hosts' costs were calibrated at
// (`reference_us`, by agent; -1: none): why its probes cannot say how fast
// the hosts ran (transport::unscalable, the first such host named; "" when they can, or
// the run was not probed), and how much slower they ran together than at
// their calibrations (the sum of their probes' means over the sum of those
// speeds, the hosts probed; 1 when none was), which moves the one profile
// they share.
struct ClusterSpeed {
  std::string unscalable;
  double slowdown = 1;
};
ClusterSpeed cluster_speed(const RunResult& run, const std::vector<double>& reference_us);

// Measures the suite in rounds; progress on stderr.
MeasuredSuite measure_suite(const std::vector<LoadedScenario>& scenarios, const MeasureOptions& options);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_SUITE_MEASUREMENT_H_
