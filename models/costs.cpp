#include "models/costs.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace exsim {

FigureSpread spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

std::string cost_profile_json(const CostProfile& profile, const std::string& description,
                              const std::map<std::string, std::string>& sources,
                              const std::map<std::string, FigureSpread>& spread,
                              const std::vector<std::string>& warnings) {
  nlohmann::ordered_json out;
  out["description"] = description;
  out["serialize_bytes_per_s"] = profile.serialize_bytes_per_s;
  out["deserialize_bytes_per_s"] = profile.deserialize_bytes_per_s;
  // The per-row figures, and the transfer and routing rates below, are written
  // at 0 (free) too: a key a profile leaves out takes the reference profile's
  // value when read.
  out["serialize_row_ns"] = profile.serialize_row_ns;
  out["deserialize_row_ns"] = profile.deserialize_row_ns;
  out["deserialize_batch_us"] = profile.deserialize_batch_us;
  out["lz4_compress_bytes_per_s"] = profile.lz4_compress_bytes_per_s;
  out["lz4_decompress_bytes_per_s"] = profile.lz4_decompress_bytes_per_s;
  out["rpc_cpu_us"] = profile.rpc_cpu_us;
  if (profile.rpc_cpu_busy_us >= 0) out["rpc_cpu_busy_us"] = profile.rpc_cpu_busy_us;
  out["rpc_latency_us"] = profile.rpc_latency_us;
  out["sender_wake_us"] = profile.sender_wake_us;
  out["transfer_bytes_per_s"] = profile.transfer_bytes_per_s;
  out["partition_rows_per_s"] = profile.partition_rows_per_s;
  if (profile.partition_channel_ns > 0) out["partition_channel_ns"] = profile.partition_channel_ns;
  out["wire_overhead_bytes"] = profile.wire_overhead_bytes;
  if (profile.service_threads > 0) out["service_threads"] = profile.service_threads;
  if (profile.cores > 0) out["cores"] = profile.cores;
  if (!sources.empty()) out["sources"] = sources;
  if (!spread.empty()) {
    nlohmann::ordered_json figures = nlohmann::ordered_json::object();
    for (const auto& [key, s] : spread) figures[key] = {{"median", s.median}, {"min", s.min}, {"max", s.max}};
    out["spread"] = figures;
  }
  if (!warnings.empty()) out["warnings"] = warnings;
  return out.dump(2) + "\n";
}

}  // namespace exsim
