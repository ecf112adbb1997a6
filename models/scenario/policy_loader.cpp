// The "policies" entries and the costs profile.
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/scenario/cost_figures.h"
#include "models/scenario/loader_parts.h"

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
  std::vector<std::string_view> known;
  for (const CostFigure& figure : cost_figures()) known.push_back(figure.key);
  known.insert(known.end(), {"description", "sources", "spread", "warnings"});
  node.reject_unknown_keys(known);
  constexpr double kMaxUs = 1e7;  // 10 s per RPC
  for (const CostFigure& figure : cost_figures()) {
    JsonNode value = node.member(figure.key);
    const double fallback = figure.get(base);
    using Reading = CostFigure::Reading;
    switch (figure.reading) {
      case Reading::kRate:
        if (!value.present() && fallback <= 0) value = node.required(figure.key);
        figure.set(costs, value.number(fallback, 1.0));
        break;
      case Reading::kOptionalRate:  // 0: free
        figure.set(costs, value.number(fallback, 0));
        break;
      case Reading::kMicros:
        figure.set(costs, value.number(fallback, 0, false, kMaxUs));
        break;
      case Reading::kNanos:
        figure.set(costs, value.number(fallback, 0, false, 1e6));
        break;
      case Reading::kBusyMicros:
        if (value.present()) figure.set(costs, value.number(0, 0, false, kMaxUs));
        break;
      case Reading::kBytes:
        figure.set(costs, static_cast<double>(value.size(static_cast<Bytes>(fallback), 0, kMiB)));
        break;
      case Reading::kCount:
        figure.set(costs, static_cast<double>(value.integer(static_cast<std::int64_t>(fallback), 0, 1 << 16)));
        break;
      case Reading::kCores:
        figure.set(costs, value.present() && !value.json().is_null() ? static_cast<double>(value.integer(0, 1, 4096)) : 0);
        break;
    }
  }
  JsonNode sources = node.member("sources");
  if (sources.present() && sources.expect_object()) {
    for (const auto& key : sources.keys()) sources.member(key).string();
  }
  node.member("description").string();
  return costs;
}

}  // namespace exsim
