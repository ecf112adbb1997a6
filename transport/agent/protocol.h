// The coordinator-agent messages (JSON in Control frames): what an agent
// measured in one exchange run, and how the coordinator adds those up.
#ifndef EXSIM_TRANSPORT_AGENT_PROTOCOL_H_
#define EXSIM_TRANSPORT_AGENT_PROTOCOL_H_

#include <string>

#include <nlohmann/json.hpp>

#include "models/base/histogram.h"
#include "models/results/results.h"
#include "transport/exchange/run_stats.h"

namespace exsim::transport {

// One agent's figures for one exchange run.
nlohmann::json stats_to_json(const RunStats& stats, int host);

// Sums of every agent's figures for one exchange run.
struct ExchangeTotals {
  std::int64_t rpcs = 0, eos_rpcs = 0, deferred_rpcs = 0, rows = 0;
  double bytes_wire = 0, bytes_uncompressed = 0, compressed_in = 0, compressed_out = 0, blocked_s = 0;
  int peak_in_flight = 0;
  std::int64_t instance_peak = 0;  // the largest sender instance's buffers at their peak
  PlannerResult planner;
  CpuByStage cpu;
  CallHistograms calls;
  // What the senders' time went to, but what the totals above or the
  // coordinator give (blocked_s, senders, round_trips_s, nic_busy).
  MeasuredSenderTime time;
  // The longest stall any agent (or the coordinator) saw during the run, and where.
  std::int64_t stall_ns = 0;
  std::string stall_where;
  void add(const nlohmann::json& stats);
  void add_stall(std::int64_t ns, std::string where) {
    if (ns <= stall_ns) return;
    stall_ns = ns;
    stall_where = std::move(where);
  }
};

}  // namespace exsim::transport

#endif  // EXSIM_TRANSPORT_AGENT_PROTOCOL_H_
