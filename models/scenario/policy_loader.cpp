// The "policies" entries.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/scenario/enum_names.h"
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
  policy.capacity = read_enum(node.member("capacity"), CapacityRule::kFixedLen);
  // A budget is a byte target; rows-by-fixed-length would ignore the strings it budgets for.
  if (policy.buffer.kind == BufferSizing::Kind::kBudget && !node.member("capacity").present()) {
    policy.capacity = CapacityRule::kBytes;
  }
  policy.in_flight = static_cast<int>(node.member("in_flight").integer(1, 1, 64));
  policy.compression = read_enum(node.member("compression"), Compression::kLz4SkipLocal);
  policy.broadcast_serialize = read_enum(node.member("broadcast_serialize"), BroadcastSerialize::kOnce);
  policy.receiver_buffer = node.member("receiver_buffer").size(policy.receiver_buffer);
  policy.sender_layout = read_enum(node.member("sender_layout"), SenderLayout::kHead);
  return policy;
}

}  // namespace exsim
