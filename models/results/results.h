// The results format (spec "Results"): what `simulate` predicts and `run`
// measures, one RunResult per (scenario, policy), so `validate` compares like
// with like.
#ifndef EXSIM_MODELS_RESULTS_RESULTS_H_
#define EXSIM_MODELS_RESULTS_RESULTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/base/size.h"
#include "models/results/bound.h"
#include "models/scenario/policy.h"

namespace exsim {

class LogHistogram;

// Times of TransmitData calls, in microseconds: mean and quantiles.
struct CallTimes {
  double mean_us = 0, p50_us = 0, p99_us = 0;
};
// The same of a histogram of nanoseconds.
CallTimes call_times_of(const LogHistogram& ns);

// CPU seconds by stage, summed over every host.
// Impala's TotalCpuTime counts the query's own threads only: produce,
// serialize, compress, call and consume, not the RPC layer's reactor and
// service threads (rpc, decompress, deserialize); docs/scenario-format.md.
struct CpuByStage {
  double produce = 0;      // the operator feeding each sender and its scan (produce_rows_per_s, scan)
  double serialize = 0;
  double compress = 0;
  double call = 0;         // each call's work on the sending query's own thread (rpc_caller_cpu_us)
  double rpc = 0;          // the rest of rpc_cpu_us on both sides: the RPC layer's threads
  double decompress = 0;
  double deserialize = 0;
  double consume = 0;      // the operator fed by each receiver (consume_rows_per_s)
  bool operator==(const CpuByStage&) const = default;
};

struct QueryResult {
  std::string name;
  int repeat = 1;
  double wall_s = 0;  // all repetitions
};

struct ExchangeResult {
  std::string query;
  std::string id;
  std::string kind;
  int repetition = 0;
  double wall_s = 0;
  std::int64_t rows = 0;             // rows delivered to consumers
  std::int64_t rpcs = 0;             // TransmitData RPCs
  std::int64_t eos_rpcs = 0;         // EndDataStream RPCs
  double bytes_wire = 0;             // payload plus framing, every RPC
  double bytes_uncompressed = 0;     // tuple data plus offsets, before compression
  double batch_bytes_mean = 0;       // uncompressed bytes per TransmitData RPC
  double sender_blocked_s = 0;       // summed over sender instances
  std::int64_t deferred_rpcs = 0;
  double lz4_ratio = -1;             // measured runs: LZ4 ratio achieved; -1: none
  // Its TransmitData calls' mean network and receiver times, as Impala's
  // profile gives each sender's RpcNetworkTime and RpcRecvrTime; -1: not known.
  double rpc_network_us_mean = -1;
  double rpc_receiver_us_mean = -1;
  // The largest sender instance's buffers at their peak, as the process holds
  // them; -1: not known.
  Bytes sender_instance_peak_bytes = -1;
  // The largest sender instance's peak as Impala's memory tracker counts it,
  // which its profile prints as each sender's PeakMemoryUsage: its strings
  // alone (models/rules/tracked_strings.h); -1: not known.
  Bytes impala_tracked_peak_bytes = -1;
  TimeByBound sender_time;           // what its sender threads' time went to (bound.h); empty: not known
};

struct HostResult {
  std::string name;
  Bytes sender_peak_bytes = 0;
  Bytes sender_expected_bytes = 0;
  Bytes sender_worst_bytes = 0;
  Bytes receiver_peak_bytes = 0;  // -1: not measured (written as null)
  // The static figures with each buffer counted as the batch it holds, not the
  // room its doubling growth leaves (models/rules/sender_memory.h); -1: none.
  Bytes sender_expected_held_bytes = -1;
  Bytes sender_worst_held_bytes = -1;
  Bytes rss_peak_bytes = -1;      // measured runs: the agent process's peak RSS; -1: none
  // Simulated runs: the largest, over queries, sum of the peaks of the host's
  // sender instances (each at its own peak), as Impala's profiles add them up; -1: none.
  Bytes sender_peak_sum_bytes = -1;
  // Measured runs: the agent process's CPU over its life (start-up included, so
  // over every policy it ran); -1: none.
  double process_cpu_s = -1;
  // Measured runs on a cluster: the host's speed probe (the wall-clock of a
  // fixed piece of work, transport/testbed/speed_probe.h) just before the run
  // and just after it; -1: not probed.
  double speed_probe_before_us = -1;
  double speed_probe_after_us = -1;
  // Measured runs: whether the host's cores were held out of deep idle states
  // ("held", "free to sleep", "not held: why"); "" when not asked.
  std::string cores_awake = {};
};

// Sender instances against the planner's estimate (docs/impala.md §6.1).
struct PlannerTally {
  std::int64_t senders = 0;
  std::int64_t over_estimate = 0;
  Bytes max_over_bytes = 0;
  void add(Bytes peak, Bytes estimate) {
    ++senders;
    if (peak > estimate) {
      ++over_estimate;
      if (peak - estimate > max_over_bytes) max_over_bytes = peak - estimate;
    }
  }
};

struct PlannerResult : PlannerTally {
  // Simulated runs: the same per partitioning kind ("hash", ...); empty when not counted.
  std::map<std::string, PlannerTally> by_kind;
};

// The wall-clock's range (simulate --range, --cost-spread, --validation):
// every cost at its cheap end and at its dear end (CostCorner), widened by the
// model's validated median error when one is given.
struct WallRange {
  double cheap_s = -1, dear_s = -1;  // -1: not known
  std::string from;                  // what the ends came from, in words
  double model_error = 0;            // the validated median wall-clock error it includes (0: none)
  bool known() const { return cheap_s >= 0 && dear_s >= 0; }
};

// One cost moved alone over its range, every other at its value (simulate
// --sensitivity): the figure at its cheap and at its dear end (CostFigure
// units; FigureEnds), and the run's wall-clock at each.
struct CostSwing {
  std::string cost;  // the profile key
  double cheap = 0, dear = 0;
  double wall_cheap_s = 0, wall_dear_s = 0;
};

// Where a prediction lies against the points the model was checked at
// (validate/validated_region.h), as a user reads it.
struct RegionNote {
  bool checked = false;
  bool inside = true;
  std::string warning;  // "outside the validated region: ...; the nearest suite row, ..., was -4.5% off"
};

// A stall of a measured run (transport/net/stall_watch.h): the longest time
// a process of it did not run (stopped, starved) or a connection's data went
// unacknowledged (a link down), and where. Past kUnsteadyStallS the run is
// unsteady: its wall-clock has a cause the model does not know, so `run`
// warns and `validate` sets the run aside. A loaded 2-core machine delays a
// thread by tens of milliseconds; a second is far past that.
struct StallNote {
  double seconds = 0;  // 0: none found (spells under 0.2 s are not kept)
  std::string where;   // "exchange hash of q1: host h1: its process did not run"
};
inline constexpr double kUnsteadyStallS = 1.0;

// How a simulated run's figures were obtained when not every exchange was
// simulated to its last row (sim/fast_forward.h, docs/simulator.md).
struct FastForwardNote {
  std::vector<std::string> shortened;  // "query/exchange": simulated shortened, times extended
  std::vector<double> rows_simulated;  // the share of each one's rows simulated (of the longer run along a line)
  bool along_line = false;             // read off the line through a run at those shares and one at half
  std::string declined;                // tried and simulated whole instead: why
  bool applied() const { return !shortened.empty(); }
};

struct RunResult {
  std::string scenario;
  std::string policy;
  std::string source = "simulated";
  // The run's configuration, so that results describe themselves (reports plot
  // against it): the scenario's mt_dop and the policy; -1: not recorded.
  int mt_dop = -1;
  Policy config;
  double wall_s = 0;
  WallRange wall_range;
  std::vector<CostSwing> sensitivity;  // each cost that has a range, alone; empty: not simulated
  RegionNote validated_region;        // simulated results: checked against the suite's points
  std::int64_t rpcs = 0;
  double bytes_wire = 0;
  double bytes_uncompressed = 0;
  CpuByStage cpu_s;
  // As Impala's sender profile splits a call (RpcNetworkTime, RpcRecvrTime):
  // the receiver's time, from the call's arrival to its response (queueing,
  // deserializing), and the rest of the call's time (network time).
  CallTimes rpc_network;
  CallTimes rpc_receiver;
  // A blocked sender thread's wake-up: from the response that frees its
  // channel (or the last of its channels, at the end) to the thread running.
  CallTimes sender_wake;
  std::vector<QueryResult> queries;
  std::vector<ExchangeResult> exchanges;
  std::vector<HostResult> hosts;
  PlannerResult planner;
  // RTT between hosts as the scenario gives it (nominal, every run) and, for
  // measured runs, as achieved (median one-way delays of calls, both
  // directions; empty for simulated runs).
  std::vector<std::vector<double>> rtt_nominal_ms, rtt_achieved_ms;
  std::vector<std::string> host_groups;  // each host's placement group, in the matrices' order
  StallNote longest_stall;               // measured runs
  FastForwardNote fast_forward;          // simulated runs
  bool unsteady() const { return longest_stall.seconds > kUnsteadyStallS; }

  // Measured runs: the agent processes' CPU over their lives, start-up
  // included (0 for simulated runs).
  double agents_process_cpu_s() const;
  // Its exchanges' sender time summed (bound.h): what the run's time went to.
  TimeByBound sender_time() const;

  // Appends one exchange's figures and adds its RPCs and bytes to the totals.
  // Sets its batch_bytes_mean from its bytes and RPCs.
  void add_exchange(ExchangeResult exchange);
};

struct Scenario;
// Names the run and records its configuration and the nominal RTT matrix.
void describe_run(RunResult& result, const Scenario& scenario, const Policy& policy, const std::string& source);
// Each host as both halves report it: the sender and receiver peaks observed
// (simulated, or measured by the agents), in host order, beside the static
// figures the memory model gives `policy` (models/rules/sender_memory.h).
void describe_hosts(RunResult& result, const Scenario& scenario, const Policy& policy,
                    const std::vector<Bytes>& sender_peak, const std::vector<Bytes>& receiver_peak);

// CPU by stage, summed.
CpuByStage& operator+=(CpuByStage& a, const CpuByStage& b);

// Pretty JSON, keys in a fixed order, numbers printed the same way every time:
// the same results give byte-identical text.
std::string results_to_json(const std::vector<RunResult>& results);

// Whether a host's cores_awake says they were asked to be held awake and were
// not ("not held: why"), and why ("" when it does not).
bool cores_refused(const std::string& cores_awake);
std::string cores_refused_why(const std::string& cores_awake);
// The cores_awake of a host that was asked and refused, for `why`.
std::string cores_refused_state(const std::string& why);
// A measured run's hosts whose cores were asked to be held awake and were not,
// said in a sentence ("h1's cores not held awake (why), h2's ..."); "" when none.
std::string cores_not_held(const RunResult& result);

// One result as a single line of JSON (JSON Lines), led by a "sweep" object:
// {"sweep": {"point": I, "points": N, "set": {KEY: VALUE...}, "vary": {KEY: [V...]...}},
// "scenario": ...}; "vary" (every variation's values) tells one sweep's lines
// from another's. The same result and point give byte-identical text.
std::string sweep_result_line(const RunResult& result, std::size_t point, std::size_t points,
                              const std::vector<std::pair<std::string, std::string>>& settings,
                              const std::vector<std::pair<std::string, std::vector<std::string>>>& vary);

// Writes through a temporary file and a rename, so a reader never sees half a file.
// A link's file is replaced, the link kept; a pipe or device is written as it is.
// Throws std::runtime_error naming the path on failure.
void write_file_atomically(const std::string& path, const std::string& content);
// The same for several files (path, content) that belong together: no regular
// file takes its place unless every one could be written.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace exsim

#endif  // EXSIM_MODELS_RESULTS_RESULTS_H_
