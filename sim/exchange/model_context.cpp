#include "sim/exchange/model_context.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/exchange/rpc_transport.h"

namespace exsim::sim {

CostRates::CostRates(const CostProfile& costs)
    : serialize_ns_per_byte(1e9 / costs.serialize_bytes_per_s),
      deserialize_ns_per_byte(1e9 / costs.deserialize_bytes_per_s),
      serialize_ns_per_row(costs.serialize_row_ns),
      deserialize_ns_per_row(costs.deserialize_row_ns),
      deserialize_ns_per_batch(costs.deserialize_batch_us * 1e3),
      compress_ns_per_byte(1e9 / costs.lz4_compress_bytes_per_s),
      decompress_ns_per_byte(1e9 / costs.lz4_decompress_bytes_per_s),
      rpc_cpu(to_ns(costs.rpc_cpu_us * 1e3)),
      // Calls that share a connection, or a call taken by a busy thread,
      // never cost more than a call alone: above rpc_cpu_us (a range's end,
      // or rpc_cpu_us moved below a calibrated figure) they cost rpc_cpu_us.
      rpc_cpu_busy(costs.rpc_cpu_busy_us < 0 ? static_cast<double>(rpc_cpu)
                                             : std::min(costs.rpc_cpu_busy_us * 1e3, static_cast<double>(rpc_cpu))),
      rpc_cpu_queued(costs.rpc_cpu_queued_us < 0 ? -1.0
                                                 : std::min(costs.rpc_cpu_queued_us * 1e3, static_cast<double>(rpc_cpu))),
      rpc_caller_cpu(costs.rpc_caller_cpu_us * 1e3),
      transfer_ns_per_byte(costs.transfer_bytes_per_s > 0 ? 1e9 / costs.transfer_bytes_per_s : 0),
      partition_ns_per_row(costs.partition_rows_per_s > 0 ? 1e9 / costs.partition_rows_per_s : 0),
      append_ns_per_byte(1e9 / costs.append_bytes_per_s),
      cache_bytes(costs.cache_bytes),
      prefetch_streams(costs.prefetch_streams),
      prefetched_miss_share(costs.prefetched_miss_share),
      cache_miss_row_ns(costs.cache_miss_row_ns),
      cache_miss_byte_ns(costs.cache_miss_byte_ns),
      core_cache_bytes(costs.core_cache_bytes),
      core_miss_ns_per_byte(costs.core_miss_byte_ns),
      transfer_miss_ns_per_byte(costs.transfer_miss_byte_ns),
      decode_miss_ns_per_byte(costs.decode_miss_byte_ns),
      fresh_ns_per_byte(costs.fresh_memory_byte_ns),
      rpc_latency(to_ns(costs.rpc_latency_us * 1e3)),
      sender_wake(to_ns(costs.sender_wake_us * 1e3)),
      wire_overhead(costs.wire_overhead_bytes) {}

void step_out_of_range(double ns) {
  throw std::range_error(fmt::format(
      "a step of {:.3g} s is beyond what the simulator represents (about 146 years); check the scenario's rates "
      "(produce_rows_per_s, consume_rows_per_s, the costs)",
      ns * 1e-9));
}

int ModelContext::trace_track(int host, const std::string& name) {
  if (!trace) return 0;
  return trace->track(trace_pid(host), trace_prefix + scenario.cluster.hosts[static_cast<std::size_t>(host)].name,
                      query + " " + name);
}

ModelContext::ModelContext(const Scenario& s, const Policy& p, std::unique_ptr<Scheduler> scheduler)
    : scenario(s),
      policy(p),
      rates(s.costs),
      simulator(std::move(scheduler)),
      network(simulator, static_cast<int>(s.cluster.hosts.size()), s.cluster.nic_gbps / 8.0),
      memory(static_cast<int>(s.cluster.hosts.size())),
      transport(std::make_unique<RpcTransport>(*this)) {
  const auto hosts = s.cluster.hosts.size();
  if (s.costs.cores > 0) {
    // All emulated hosts share one machine's cores (a calibrated profile).
    pools.push_back(std::make_unique<CpuPool>(simulator, s.costs.cores));
    cpu_of_host.assign(hosts, pools.back().get());
  } else {
    for (std::size_t h = 0; h < hosts; ++h) {
      pools.push_back(std::make_unique<CpuPool>(simulator, s.cluster.cores_per_host));
      cpu_of_host.push_back(pools.back().get());
    }
  }
}

ModelContext::~ModelContext() = default;

}  // namespace exsim::sim
