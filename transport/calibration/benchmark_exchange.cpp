#include "transport/calibration/benchmark_exchange.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>

#include "models/scenario/scenario_loader.h"
#include "transport/exchange/local_cluster.h"
#include "transport/exchange/run_stats.h"

namespace exsim::transport {

std::string benchmark_scenario(const BenchmarkShape& shape) {
  std::string placement;
  int hosts = shape.hosts;
  if (shape.one_pair) {
    hosts = std::max(2, shape.hosts);
    placement = R"(, "skew": 30, "senders": {"hosts": ["h0"], "per_host": 1}, "receivers": {"hosts": ["h1"], "per_host": 2})";
  } else {
    std::string all;
    for (int h = 0; h < hosts; ++h) all += fmt::format("{}\"h{}\"", h ? ", " : "", h);
    if (shape.receivers_per_host > 1) {
      placement += fmt::format(R"(, "receivers": {{"hosts": [{}], "per_host": {}}})", all, shape.receivers_per_host);
    }
    if (shape.one_sender) placement += R"(, "senders": {"hosts": ["h0"], "per_host": 1})";
  }
  return fmt::format(
      R"({{"name": "calibrate", "seed": {}, "cluster": {{"hosts": {}, "rtt_ms": {{"same_group": {}}}}}, "mt_dop": 1,
          "policies": {{"p": {}}},
          "workload": {{"queries": [{{"name": "q", "exchanges": [
            {{"id": "x", "kind": "{}", "rows": {},
              "row": {{"fixed_bytes": {}, "varlen_bytes": {{"dist": "uniform", "mean": 16, "max": 48}}}},
              "lz4_ratio": 0.5{}}}]}}]}}}})",
      shape.seed, hosts, shape.rtt_ms, shape.policy, shape.kind, shape.rows, shape.fixed_bytes, placement);
}

Sample run_benchmark(const std::string& text, bool measure_rtt) {
  const Scenario scenario = parse_scenario(text, "(calibration benchmark)");
  LocalCluster cluster(scenario, /*delay_line=*/true, /*nic_cap=*/true);
  RunStats stats(static_cast<int>(scenario.cluster.hosts.size()));
  std::int64_t reactor_before = 0;
  const int hosts = static_cast<int>(scenario.cluster.hosts.size());
  for (int h = 0; h < hosts; ++h) reactor_before += cluster.host(h).reactor_cpu_ns();
  const ExchangeOutcome outcome = cluster.run_exchange(scenario.policies.front(), 0, 0, 0, stats, std::chrono::seconds(120));
  if (!outcome.ok) throw std::runtime_error(fmt::format("calibration exchange failed: {}", outcome.error));
  std::int64_t reactor_after = 0;
  for (int h = 0; h < hosts; ++h) reactor_after += cluster.host(h).reactor_cpu_ns();
  Sample s;
  s.wall_s = outcome.wall_s;
  s.rpcs = static_cast<double>(stats.rpcs.load());
  s.eos_rpcs = static_cast<double>(stats.eos_rpcs.load());
  s.rows = static_cast<double>(stats.rows_delivered.load());
  s.bytes_wire = static_cast<double>(stats.bytes_wire.load());
  s.bytes_uncompressed = static_cast<double>(stats.bytes_uncompressed.load());
  s.tuple_bytes = s.bytes_uncompressed - 4 * s.rows;
  s.compressed_in = static_cast<double>(stats.payload_compressed_in.load());
  s.serialize_ns = static_cast<double>(stats.cpu_serialize.load());
  s.compress_ns = static_cast<double>(stats.cpu_compress.load());
  s.decompress_ns = static_cast<double>(stats.cpu_decompress.load());
  s.deserialize_ns = static_cast<double>(stats.cpu_deserialize.load());
  s.sender_fault_bytes =
      static_cast<double>(stats.sender_minor_faults.load()) * static_cast<double>(sysconf(_SC_PAGESIZE));
  // RPC work: the reactors' CPU beyond decoding, and the sender and consumer
  // threads' beyond their stages (waiting, handing calls over, waking up).
  s.rpc_ns = static_cast<double>(reactor_after - reactor_before - stats.cpu_decode_on_reactor.load() +
                                 stats.cpu_handoff.load() + stats.cpu_call.load());
  if (measure_rtt) {
    // Host 0's calls as host 1 received them, and their responses as host 0 did.
    const auto delay = [](const std::vector<double>& by_host, std::size_t h) { return h < by_host.size() ? by_host[h] : -1; };
    const double call_ms = delay(cluster.host(1).achieved_delays_ms(Host::Statistic::kMean).calls_from, 0);
    const double response_ms = delay(cluster.host(0).achieved_delays_ms(Host::Statistic::kMean).responses_from, 1);
    if (call_ms >= 0 && response_ms >= 0) s.achieved_rtt_ms = call_ms + response_ms;
  }
  return s;
}

}  // namespace exsim::transport
