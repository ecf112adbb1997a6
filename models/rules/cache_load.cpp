#include "models/rules/cache_load.h"

#include <algorithm>
#include <cmath>

#include "models/rules/sender_memory.h"

namespace exsim {

double evicted_share(double working_set, double cache_bytes) {
  if (cache_bytes <= 0 || working_set <= 0) return 0;
  return 1.0 - std::exp(-working_set / cache_bytes);
}

double exposed_share(double streams, double prefetch_streams, double prefetched_share) {
  if (prefetch_streams <= 0) return 1.0;
  const double phi = std::clamp(prefetched_share, 0.0, 1.0);
  if (streams <= prefetch_streams) return phi;
  return phi + (1.0 - phi) * (1.0 - prefetch_streams / streams);
}

std::vector<CacheLoad> sender_cache_load(const Scenario& scenario, const Policy& policy, const Exchange& exchange) {
  const auto hosts = scenario.cluster.hosts.size();
  const int channels = exchange.receivers.instances();
  // A hash sender writes a stream into each channel's batch; the others copy
  // whole batches into one.
  const int streams = exchange.send_path() == PartitionKind::kHash ? channels : 1;
  const double row_bytes = static_cast<double>(exchange.row.fixed_bytes) + exchange.row.varlen.mean();
  std::vector<double> bytes(hosts, 0), own(hosts, 0);
  for (int h : exchange.senders.hosts) {
    const auto here = std::count(exchange.receivers.hosts.begin(), exchange.receivers.hosts.end(), h);
    const int local = static_cast<int>(here) * exchange.receivers.per_host;
    const Bytes one = sender_static_bytes(policy, exchange, channels, local, row_bytes, BufferCount::kHeld);
    bytes[static_cast<std::size_t>(h)] += static_cast<double>(exchange.senders.per_host) * static_cast<double>(one);
    own[static_cast<std::size_t>(h)] = static_cast<double>(one);
  }
  // Every host's senders share one cache when the profile's hosts are one
  // machine; a sender's streams are its own whatever shares its core (measured:
  // three senders of 12 channels on one core cost what one sender of 12 costs
  // at the same working set, not what one of 36 does).
  std::vector<CacheLoad> load(hosts, CacheLoad{0, static_cast<double>(streams), 0});
  double all_bytes = 0;
  for (std::size_t h = 0; h < hosts; ++h) all_bytes += bytes[h];
  for (std::size_t h = 0; h < hosts; ++h) {
    load[h].working_set = scenario.costs.cores > 0 ? all_bytes : bytes[h];
    load[h].own_working_set = own[h];
  }
  return load;
}

}  // namespace exsim
