#include "transport/agent/measured_exchange.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "models/results/bound.h"

namespace exsim::transport {
namespace {

// What the coordinator knows of an exchange's calls (models/results/bound.h):
// their round trip, averaged over the sender and receiver instances' host
// pairs (the RTT, imposed by delay lines or the real hosts', and the
// profile's RPC latency, as the simulator counts round trips), and how busy
// the busiest NIC was, its bytes spread evenly over the pairs that cross
// hosts: a NIC of the scenario's rate when one is there (capped, or real
// hosts'), else none (loopback: what is beyond the RTT is the RPC layer's).
void add_call_parts(const Scenario& scenario, const RunOptions& options, MeasuredSenderTime& time, const Exchange& e,
                    const ExchangeTotals& t, double wall) {
  const int senders = e.senders.instances(), receivers = e.receivers.instances();
  const std::size_t hosts = scenario.cluster.hosts.size();
  std::vector<double> out(hosts, 0), in(hosts, 0);
  double rtt_ms = 0, crossing = 0;
  for (int s = 0; s < senders; ++s) {
    for (int r = 0; r < receivers; ++r) {
      const int from = e.senders.host_of(s), to = e.receivers.host_of(r);
      rtt_ms += scenario.cluster.rtt.rtt_ms(from, to);
      if (from == to) continue;
      out[static_cast<std::size_t>(from)] += 1;
      in[static_cast<std::size_t>(to)] += 1;
      crossing += 1;
    }
  }
  const double pairs = std::max(1, senders * receivers);
  const bool real_hosts = !options.hosts_file.empty();
  const double rtt_s = options.delay_line || real_hosts ? rtt_ms / pairs * 1e-3 : 0;
  time.round_trips_s = static_cast<double>(t.rpcs) * (rtt_s + scenario.costs.rpc_latency_us * 1e-6);
  if (!options.nic_cap && !real_hosts) return;
  const double busiest = std::max(*std::max_element(out.begin(), out.end()), *std::max_element(in.begin(), in.end()));
  const double nic_bytes_per_s = scenario.cluster.nic_gbps * 1e9 / 8;
  if (crossing > 0 && wall > 0) time.nic_busy = t.bytes_wire * busiest / crossing / nic_bytes_per_s / wall;
}

}  // namespace

void record_exchange(const Scenario& scenario, const RunOptions& options, RunResult& result, CallHistograms& calls,
                     const Query& query, std::size_t x, int rep, const ExchangeTotals& t, double wall) {
  const Exchange& e = query.exchanges[x];
  ExchangeResult r;
  r.query = query.name;
  r.id = e.id;
  r.kind = to_string(e.kind);
  r.repetition = rep;
  r.wall_s = wall;
  r.rows = t.rows;
  r.rpcs = t.rpcs;
  r.eos_rpcs = t.eos_rpcs;
  r.bytes_wire = t.bytes_wire;
  r.bytes_uncompressed = t.bytes_uncompressed;
  r.sender_blocked_s = t.blocked_s;
  r.deferred_rpcs = t.deferred_rpcs;
  r.sender_instance_peak_bytes = t.instance_peak;
  r.lz4_ratio = t.compressed_in > 0 ? t.compressed_out / t.compressed_in : 1.0;
  if (t.rpcs > 0) {
    r.rpc_network_us_mean = t.time.network_s * 1e6 / static_cast<double>(t.rpcs);
    r.rpc_receiver_us_mean = t.time.receiver_s * 1e6 / static_cast<double>(t.rpcs);
  }
  MeasuredSenderTime time = t.time;
  time.blocked_s = t.blocked_s;
  time.senders = static_cast<int>(t.planner.senders);
  add_call_parts(scenario, options, time, e, t, wall);
  r.sender_time = attribute_measured(time);
  const double stall_s = static_cast<double>(t.stall_ns) * 1e-9;
  if (stall_s > result.longest_stall.seconds) {
    result.longest_stall = {stall_s, fmt::format("exchange {} of {}: {}", e.id, query.name, t.stall_where)};
  }
  result.add_exchange(std::move(r));
  result.cpu_s += t.cpu;
  result.planner.senders += t.planner.senders;
  result.planner.over_estimate += t.planner.over_estimate;
  result.planner.max_over_bytes = std::max(result.planner.max_over_bytes, t.planner.max_over_bytes);
  calls.merge(t.calls);
}

}  // namespace exsim::transport
