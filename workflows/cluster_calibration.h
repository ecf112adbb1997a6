// `exsim calibrate --hosts`: a real cluster measured through agents on its
// hosts. Every ordered host pair's path, probed through the exchange's own data
// connection one pair at a time (so that no two probes share a link): the
// round trip of single RPCs, median and spread, and the bandwidth of large
// ones, four in flight. Each host's CPU costs, by `exsim calibrate` run on it
// over all its CPUs, one host at a time; and the RPC layer's CPU and wake-ups
// per call from one-row calls between two hosts over the real path (on one
// machine calibrate must measure them through delay lines, whose timers wake
// the reactors too: 33.5 us a call against 12 on a veth path). Placement groups are found by clustering the RTT matrix
// (models/scenario/placement_groups.h). What it writes: the cluster as a
// scenario's "cluster" object, beside what was measured, and a costs profile
// of each figure's median over the hosts.
#ifndef EXSIM_WORKFLOWS_CLUSTER_CALIBRATION_H_
#define EXSIM_WORKFLOWS_CLUSTER_CALIBRATION_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/latency_matrix.h"
#include "models/scenario/placement_groups.h"

namespace exsim::workflows {

struct ClusterCalibrationOptions {
  std::string hosts_file;  // one agent's ADDRESS:PORT per host
  std::string token;
  int round_trips = 200;            // per ordered pair
  std::size_t bulk_bytes = 64u << 20;  // per ordered pair of two hosts
  bool cpu = true;                  // also each host's CPU costs
  // The paths and calls measured with the agents' cores held awake
  // (transport/testbed/awake_cores.h), and the pings again with them free to
  // sleep; each host's own CPU calibration always with them free.
  bool hold_cores_awake = true;
  int cpu_repetitions = 5;
  double cpu_scale = 1.0;
  std::function<void(const std::string&)> progress;
};

struct ClusterCalibration {
  std::vector<std::string> names, addresses;
  std::vector<int> cores;
  std::vector<std::string> machines;                  // each host's kernel boot id: equal ones share a machine
  LatencyMatrix rtt;                                  // medians, ns
  std::vector<std::vector<double>> rtt_p10_ms, rtt_p90_ms;
  std::vector<std::vector<double>> bandwidth_gbps;    // -1 on the diagonal
  // Per host: "held", "free to sleep" or why they could not be held, as the
  // measurements above were made (AgentSession::cores_awake).
  std::vector<std::string> cores_awake;
  // With the cores held: each ordered pair's median ping (ms) again with
  // them free to sleep, what a call that finds its thread's core asleep pays;
  // empty when not measured.
  std::vector<std::vector<double>> ping_cores_free_ms;
  PlacementGroups groups;
  std::vector<nlohmann::ordered_json> host_profiles;  // each host's `calibrate` profile; empty without cpu
  // The per-call figures (transport/calibration/benchmarks.h per_call_figures)
  // of one-row calls from h0 to h1 over the cluster's own path; empty without
  // cpu or with one host.
  std::map<std::string, double> path_calls;
  // With three hosts or more, the RPC layer's bytes too (transfer_bytes_per_s,
  // transfer_miss_byte_ns) among them, measured over the paths from h0 in
  // sessions of their own; why not, when that failed (agents that do not
  // serve another coordinator, say).
  std::string path_transfer_failure;
  std::vector<std::string> cpu_failures;              // a host whose calibration wrote nothing, and why
  // Each host's speed probe (transport/testbed/speed_probe.h) just after its
  // CPU calibration, -1 where it failed; empty without cpu. validate --hosts
  // holds each run to it.
  std::vector<double> speed_probe_us;
};

// Throws std::runtime_error naming the agent that failed.
ClusterCalibration calibrate_cluster(const ClusterCalibrationOptions& options);

// The cluster as a scenario's "cluster" object, with what was measured beside it:
// {"cluster": {...}, "measured": {...}}.
nlohmann::ordered_json cluster_json(const ClusterCalibration& calibration);

// Past this many microseconds added to a ping by letting the cores sleep,
// sleep_cost warns: the same hosts' pings vary by a few us from run to run.
constexpr double kDearSleepUs = 20;

// What letting the cores sleep added to the pings between hosts, said in a
// line (a warning past kDearSleepUs); "" when not measured.
std::string sleep_cost(const ClusterCalibration& calibration);

// A profile of each numeric figure's median over the hosts' profiles (the
// rest from the first), the per-call figures those of the cluster's path
// (path_calls), or null when no host's CPU was calibrated. Its
// `cores` says whether the hosts share a machine's CPUs: that machine's count
// when every agent runs on one machine (network namespaces, say), else 0, each
// host having the cluster's cores_per_host of its own.
nlohmann::ordered_json median_profile(const ClusterCalibration& calibration);

}  // namespace exsim::workflows

#endif  // EXSIM_WORKFLOWS_CLUSTER_CALIBRATION_H_
