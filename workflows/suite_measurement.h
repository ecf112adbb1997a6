// The real half of `exsim validate` on one machine: the suite's policies run on the real exchange
// in rounds (each runs once every policy still short of steady runs: validate/run_schedule.h), with
// this machine's costs calibrated before the first round and after each, and a speed probe before
// and after every run. Each run is simulated with the costs around its own round, and per policy
// the round of median error counts: a slowdown of the machine that lasts tens of seconds touches
// one round of a policy, not all of them. A run during which the machine's speed strayed from the
// speed of the calibration before its round, calls between processes cost more than at that
// calibration (transport/testbed/call_probe.h), or other processes took its CPU
// (transport/testbed/cpu_set.h: CoreShare), is set aside and made again in a later round. A round
// whose calibration after it was unsteady or found the speed changed takes the costs of the one
// before it alone (each run was held to those), and its runs are set aside only when that one was
// unsteady too. A scenario left without enough steady runs when its tries or the time limit run out
// gets no verdict: the machine was too busy or too noisy, which is said, never reported as a model
// error.
#ifndef EXSIM_WORKFLOWS_SUITE_MEASUREMENT_H_
#define EXSIM_WORKFLOWS_SUITE_MEASUREMENT_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "models/results/results.h"
#include "models/scenario/scenario.h"
#include "transport/calibration/calibrate.h"
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
  // --hosts, "measured"."speed_probe_us"; -1 for none): a run during which a
  // host's speed strayed from it is set aside. Empty: runs are not held to it.
  std::vector<double> speed_probe_us;
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
  // own speed probes around it strayed from its calibration's.
  std::optional<RealCluster> real_cluster;
};

struct MeasuredScenario {
  std::vector<std::vector<validate::RoundRun>> runs;  // per policy: its steady runs
  // Per policy: its runs set aside, kept so that a policy with no steady run
  // still shows what was measured (flagged, never judged).
  std::vector<std::vector<validate::RoundRun>> set_aside;
  // Why the scenario gets no verdict ("" when it does).
  std::string unsteady;
};

struct MeasuredSuite {
  std::vector<MeasuredScenario> scenarios;  // in the suite's order
  // Calibrate only: every bracket's repetitions, and per round the costs of
  // the brackets before and after it (their medians).
  transport::CalibrationSamples calibration;
  std::vector<CostProfile> round_costs;
};

// Why a cluster's run did not hold to the speeds its hosts' costs were
// calibrated at (`reference_us`, by agent; -1: none): the first host whose
// probes around the run strayed more than transport::kSteadySpeed, named; ""
// when none did, or the run was not probed.
std::string strayed_host(const RunResult& run, const std::vector<double>& reference_us);

// Measures the suite in rounds; progress on stderr.
MeasuredSuite measure_suite(const std::vector<LoadedScenario>& scenarios, const MeasureOptions& options);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_SUITE_MEASUREMENT_H_
