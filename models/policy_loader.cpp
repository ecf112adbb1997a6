// The "policies" entries and the costs profile.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/loader_parts.h"

namespace exsim {

Policy read_policy(const JsonNode& node, const std::string& name) {
  Policy policy;
  policy.name = name;
  if (!node.expect_object()) return policy;
  node.reject_unknown_keys(
      {"buffer", "capacity", "in_flight", "compression", "broadcast_serialize", "receiver_buffer", "sender_layout"});
  JsonNode buffer = node.member("buffer");
  if (buffer.present() && buffer.expect_object()) {
    buffer.reject_unknown_keys({"flat", "budget", "min", "max"});
    JsonNode flat = buffer.member("flat");
    JsonNode budget = buffer.member("budget");
    if (flat.present() && budget.present()) {
      buffer.error("give either \"flat\" or \"budget\" (with min and max), not both");
    } else if (budget.present()) {
      policy.buffer.kind = BufferSizing::Kind::kBudget;
      policy.buffer.budget = budget.size(policy.buffer.budget);
      policy.buffer.min = buffer.member("min").size(policy.buffer.min);
      policy.buffer.max = buffer.member("max").size(policy.buffer.max);
      if (policy.buffer.min > policy.buffer.max) {
        buffer.member("min").error(fmt::format("min {} is above max {}", format_size(policy.buffer.min),
                                               format_size(policy.buffer.max)));
      }
      if (policy.buffer.budget < policy.buffer.min) {
        budget.error(fmt::format("budget {} is below min {}: it cannot hold even one minimum buffer",
                                 format_size(policy.buffer.budget), format_size(policy.buffer.min)));
      }
    } else if (flat.present()) {
      for (const char* key : {"min", "max"}) {
        if (buffer.member(key).present()) buffer.member(key).error(fmt::format("'{}' goes with \"budget\"", key));
      }
      policy.buffer.flat = flat.size(policy.buffer.flat);
    } else {
      buffer.error("expected \"flat\" or \"budget\"");
    }
  }
  policy.capacity = static_cast<CapacityRule>(node.member("capacity").choice({"fixed_len", "bytes"}, 0));
  // A budget is a byte target; rows-by-fixed-length would ignore the strings it budgets for.
  if (policy.buffer.kind == BufferSizing::Kind::kBudget && !node.member("capacity").present()) {
    policy.capacity = CapacityRule::kBytes;
  }
  policy.in_flight = static_cast<int>(node.member("in_flight").integer(1, 1, 64));
  policy.compression =
      static_cast<Compression>(node.member("compression").choice({"lz4", "lz4_skip_local", "none"}, 1));
  policy.broadcast_serialize =
      static_cast<BroadcastSerialize>(node.member("broadcast_serialize").choice({"once", "per_channel"}, 0));
  policy.receiver_buffer = node.member("receiver_buffer").size(policy.receiver_buffer);
  policy.sender_layout = static_cast<SenderLayout>(node.member("sender_layout").choice({"head", "v4.3"}, 0));
  return policy;
}

CostProfile read_costs(const JsonNode& node, const CostProfile& base) {
  CostProfile costs = base;
  if (!node.expect_object()) return costs;
  node.reject_unknown_keys({"serialize_bytes_per_s", "deserialize_bytes_per_s", "lz4_compress_bytes_per_s",
                            "lz4_decompress_bytes_per_s", "rpc_cpu_us", "rpc_cpu_busy_us", "rpc_latency_us", "sender_wake_us", "transfer_bytes_per_s",
                            "partition_rows_per_s", "partition_channel_ns", "serialize_row_ns", "deserialize_row_ns", "deserialize_batch_us",
                            "wire_overhead_bytes",
                            "service_threads", "cores", "description", "sources", "spread", "warnings"});
  auto rate = [&](const char* key, double fallback) {
    JsonNode value = node.member(key);
    if (!value.present() && fallback <= 0) value = node.required(key);
    return value.number(fallback, 1.0);  // bytes per second
  };
  costs.serialize_bytes_per_s = rate("serialize_bytes_per_s", base.serialize_bytes_per_s);
  costs.deserialize_bytes_per_s = rate("deserialize_bytes_per_s", base.deserialize_bytes_per_s);
  costs.lz4_compress_bytes_per_s = rate("lz4_compress_bytes_per_s", base.lz4_compress_bytes_per_s);
  costs.lz4_decompress_bytes_per_s = rate("lz4_decompress_bytes_per_s", base.lz4_decompress_bytes_per_s);
  constexpr double kMaxUs = 1e7;  // 10 s per RPC
  costs.rpc_cpu_us = node.member("rpc_cpu_us").number(base.rpc_cpu_us, 0, false, kMaxUs);
  costs.rpc_latency_us = node.member("rpc_latency_us").number(base.rpc_latency_us, 0, false, kMaxUs);
  costs.sender_wake_us = node.member("sender_wake_us").number(base.sender_wake_us, 0, false, kMaxUs);
  const JsonNode busy = node.member("rpc_cpu_busy_us");
  if (busy.present()) costs.rpc_cpu_busy_us = busy.number(0, 0, false, kMaxUs);
  // Optional (0: moving bytes through the RPC stack costs no CPU).
  costs.transfer_bytes_per_s = node.member("transfer_bytes_per_s").number(base.transfer_bytes_per_s, 0);
  costs.partition_rows_per_s = node.member("partition_rows_per_s").number(base.partition_rows_per_s, 0);
  costs.partition_channel_ns = node.member("partition_channel_ns").number(base.partition_channel_ns, 0, false, 1e6);
  costs.serialize_row_ns = node.member("serialize_row_ns").number(base.serialize_row_ns, 0, false, 1e6);
  costs.deserialize_row_ns = node.member("deserialize_row_ns").number(base.deserialize_row_ns, 0, false, 1e6);
  costs.deserialize_batch_us = node.member("deserialize_batch_us").number(base.deserialize_batch_us, 0, false, kMaxUs);
  costs.wire_overhead_bytes = node.member("wire_overhead_bytes").size(base.wire_overhead_bytes, 0, kMiB);
  costs.service_threads = static_cast<int>(node.member("service_threads").integer(base.service_threads, 0, 1 << 16));
  JsonNode cores = node.member("cores");
  costs.cores = cores.present() && !cores.json().is_null() ? static_cast<int>(cores.integer(0, 1, 4096)) : 0;
  JsonNode sources = node.member("sources");
  if (sources.present() && sources.expect_object()) {
    for (const auto& key : sources.keys()) sources.member(key).string();
  }
  node.member("description").string();
  return costs;
}

}  // namespace exsim
