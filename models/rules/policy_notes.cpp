#include "models/rules/policy_notes.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/base/size.h"
#include "models/rules/sizing_policy.h"

namespace exsim {

ChannelBuffers channel_buffers(const Scenario& scenario, const Policy& policy) {
  ChannelBuffers out;
  for (const auto& query : scenario.queries) {
    for (const auto& exchange : query.exchanges) {
      if (exchange.send_path() != PartitionKind::kHash) continue;
      const Bytes target = channel_target(policy.buffer, exchange.receivers.instances());
      out.least = out.hash_exchanges == 0 ? target : std::min(out.least, target);
      out.most = std::max(out.most, target);
      ++out.hash_exchanges;
      if (policy.buffer.kind == BufferSizing::Kind::kBudget) {
        out.at_min += target == policy.buffer.min ? 1 : 0;
        out.at_max += target == policy.buffer.max ? 1 : 0;
      }
    }
  }
  return out;
}

std::string channel_buffers_text(const ChannelBuffers& buffers) {
  if (buffers.hash_exchanges == 0) return "-";
  if (buffers.least == buffers.most) return readable_size(buffers.least);
  return fmt::format("{}-{}", readable_size(buffers.least), readable_size(buffers.most));
}

std::vector<std::string> policy_notes(const Scenario& scenario, const std::vector<Policy>& policies) {
  std::vector<std::string> notes;
  for (const Policy& policy : policies) {
    if (policy.buffer.kind != BufferSizing::Kind::kBudget) continue;
    const ChannelBuffers b = channel_buffers(scenario, policy);
    if (b.hash_exchanges == 0) continue;
    const BufferSizing& s = policy.buffer;
    if (b.at_min == b.hash_exchanges && s.min != s.max) {
      notes.push_back(fmt::format(
          "policy {}: its budget of {} is below its min of {} per channel on every hash exchange ({} / (2 x "
          "channels)), so it sends as a flat {} would",
          policy.name, readable_size(s.budget), readable_size(s.min), readable_size(s.budget), readable_size(s.min)));
    } else if (b.at_max == b.hash_exchanges && s.min != s.max) {
      notes.push_back(fmt::format("policy {}: its budget of {} never binds: every hash exchange gets its max of {} "
                                  "per channel",
                                  policy.name, readable_size(s.budget), readable_size(s.max)));
    }
  }
  int exchanges = 0, unbounded = 0;
  for (const auto& query : scenario.queries) {
    for (const auto& exchange : query.exchanges) {
      ++exchanges;
      unbounded += exchange.produce_rows_per_s > 0 || exchange.scan.rows_per_s > 0 ? 0 : 1;
    }
  }
  if (unbounded > 0) {
    notes.push_back(fmt::format(
        "{} of {} exchange(s) give neither produce_rows_per_s nor scan: their producers take no time, so their senders run as "
        "fast as their own CPU allows (docs/scenario-format.md)",
        unbounded, exchanges));
  }
  return notes;
}

}  // namespace exsim
